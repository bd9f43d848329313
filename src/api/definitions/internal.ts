/**
 * The trainer's control routes as route definitions: validated from these schemas like every
 * route, but hidden from the public document (in production only the trainer container reaches
 * them, from inside the Worker).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { FAILURE_MESSAGE_MAX_CHARS } from "../../core/limits";
import { progressReportSchema } from "../../jobs/types";
import { MAX_FRAME_PARTS } from "../../storage/frame-parts";
import { internalJsonBody } from "../request-body";
import { jsonRequest } from "./parts";

const attempt = z.number().int().min(1);
const params = z.object({ id: z.uuid() });
const query = z.object({ attempt: z.coerce.number().int().min(1) });
const ok = { 200: { description: "Done" } };

const read = (path: string) => createRoute({ hide: true, method: "get", path, request: { params, query }, responses: ok });
const write = (path: string) => createRoute({ hide: true, method: "put", path, request: { params, query }, responses: ok });
const post = <T extends z.ZodType>(path: string, body: T) =>
  createRoute({
    hide: true,
    method: "post",
    path,
    middleware: [internalJsonBody] as const,
    request: { params, body: jsonRequest(body) },
    responses: ok,
  });

export const task = read("/internal/jobs/{id}/task");
export const frame = read("/internal/jobs/{id}/frame");
/** Where to read the frame: `{url, bytes}`, a presigned GET straight from R2, or `url: null` (GET frame). */
export const frameLocation = read("/internal/jobs/{id}/frame/location");
/** An ingest job writes the version's preview (streamed; Content-Length required); its frame, in parts (below). */
export const writePreview = write("/internal/jobs/{id}/preview");
/**
 * An ingest job stores a large frame in parts (an R2 multipart upload, ../../training/frame-upload-control):
 * begin, PUT each part (to its presigned URL when the S3 API is configured, else to the route
 * below with Content-Length), then complete or abort. Each part's URL is asked for from
 * `frame/part-url` when the part is ready (the frame's size is not known at begin).
 */
const uploadId = z.string().min(1).max(1024);
const uploadedPart = z.object({ part_number: z.number().int().min(1), etag: z.string().min(1) });
export const beginFrameUpload = post("/internal/jobs/{id}/frame/uploads", z.object({ attempt }));
export const signFramePart = post(
  "/internal/jobs/{id}/frame/part-url",
  z.object({ attempt, upload_id: uploadId, part_number: z.number().int().min(1), bytes: z.number().int().min(0) }),
);
export const writeFramePart = createRoute({
  hide: true,
  method: "put",
  path: "/internal/jobs/{id}/frame/parts/{part}",
  request: { params: params.extend({ part: z.coerce.number().int().min(1) }), query: query.extend({ upload_id: uploadId }) },
  responses: ok,
});
export const completeFrameUpload = post(
  "/internal/jobs/{id}/frame/complete",
  z.object({ attempt, upload_id: uploadId, bytes: z.number().int().min(0), parts: z.array(uploadedPart).min(1).max(MAX_FRAME_PARTS) }),
);
export const abortFrameUpload = post("/internal/jobs/{id}/frame/abort", z.object({ attempt, upload_id: uploadId }));
export const readRepresentation = read("/internal/jobs/{id}/representation");
export const writeRepresentation = write("/internal/jobs/{id}/representation");
const withFile = (method: "get" | "put", path: string) =>
  createRoute({ hide: true, method, path, request: { params: params.extend({ file: z.string() }), query }, responses: ok });

/** A training job writes its model version's artifact files; a batch inference job reads them. */
export const writeArtifact = withFile("put", "/internal/jobs/{id}/artifacts/{file}");
export const readArtifact = withFile("get", "/internal/jobs/{id}/artifacts/{file}");
/** An ingest job's uploaded files, by index; `Range: bytes=first-last` for a part of one (206). */
export const readSource = createRoute({
  hide: true,
  method: "get",
  path: "/internal/jobs/{id}/sources/{index}",
  request: {
    params: params.extend({ index: z.coerce.number().int().min(0) }),
    query,
    // One range, both ends given: all the trainer asks for (a Parquet file's footer).
    headers: z.object({
      range: z
        .string()
        .regex(/^bytes=\d{1,15}-\d{1,15}$/, "Expected bytes=first-last")
        .optional(),
    }),
  },
  responses: ok,
});
/** A batch inference job's result files (pages and whole files, names in ../../training/batch-control). */
export const writeResult = withFile("put", "/internal/jobs/{id}/results/{file}");
export const report = post(
  "/internal/jobs/{id}/report",
  progressReportSchema.extend({ attempt, rows_processed: z.number().int().min(0).optional() }),
);
export const succeed = post("/internal/jobs/{id}/succeed", z.object({ attempt, output: z.record(z.string(), z.unknown()) }));
export const fail = post(
  "/internal/jobs/{id}/fail",
  z.object({ attempt, message: z.string().min(1).max(FAILURE_MESSAGE_MAX_CHARS), permanent: z.boolean() }),
);

/** The (local) trainer process announces that it started: the jobs it was running are lost. */
export const trainerStarted = createRoute({ hide: true, method: "post", path: "/internal/trainer/started", responses: ok });
