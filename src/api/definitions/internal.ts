/**
 * The trainer's control routes as route definitions, built from the wire contract
 * (../../container/wire): validated from its schemas like every route, but hidden from the public
 * document (in production only the trainer container reaches them, from inside the Worker).
 */
import { createRoute, z } from "@hono/zod-openapi";
import * as wire from "../../container/wire";
import { internalJsonBody } from "../request-body";
import { jsonRequest } from "./parts";

const params = z.object({ id: z.uuid() });
const ok = { 200: { description: "Done" } };
const path = wire.controlRoutePath;

const read = (route: wire.ControlRoute) =>
  createRoute({ hide: true, method: "get", path: path(route), request: { params, query: wire.attemptQuery }, responses: ok });
const write = (route: wire.ControlRoute) =>
  createRoute({ hide: true, method: "put", path: path(route), request: { params, query: wire.attemptQuery }, responses: ok });
const post = <T extends z.ZodType>(route: wire.ControlRoute, body: T) =>
  createRoute({
    hide: true,
    method: "post",
    path: path(route),
    middleware: [internalJsonBody] as const,
    request: { params, body: jsonRequest(body) },
    responses: ok,
  });
const withFile = (method: "get" | "put", route: wire.ControlRoute) =>
  createRoute({
    hide: true,
    method,
    path: path(route),
    request: { params: params.extend({ file: z.string() }), query: wire.attemptQuery },
    responses: ok,
  });

export const task = read("task");
export const frame = read("frame");
export const frameLocation = read("frameLocation");
/** An ingest job writes the version's preview (streamed; Content-Length required); its frame, in parts (below). */
export const writePreview = write("writePreview");
export const beginFrameUpload = post("beginFrameUpload", wire.beginFrameUploadBody);
export const signFramePart = post("signFramePart", wire.signFramePartBody);
export const writeFramePart = createRoute({
  hide: true,
  method: "put",
  path: path("writeFramePart"),
  request: { params: params.extend({ part: z.coerce.number().int().min(1) }), query: wire.framePartQuery },
  responses: ok,
});
export const completeFrameUpload = post("completeFrameUpload", wire.completeFrameUploadBody);
export const abortFrameUpload = post("abortFrameUpload", wire.abortFrameUploadBody);
export const readRepresentation = read("readRepresentation");
export const writeRepresentation = write("writeRepresentation");
/** A training job writes its model version's artifact files; a batch inference job reads them. */
export const writeArtifact = withFile("put", "writeArtifact");
export const readArtifact = withFile("get", "readArtifact");
/** An ingest job's uploaded files, by index; `Range: bytes=first-last` for a part of one (206). */
export const readSource = createRoute({
  hide: true,
  method: "get",
  path: path("readSource"),
  request: {
    params: params.extend({ index: z.coerce.number().int().min(0) }),
    query: wire.attemptQuery,
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
/** A batch inference job's result files (names in the wire contract). */
export const writeResult = withFile("put", "writeResult");
export const report = post("report", wire.reportBody);
export const succeed = post("succeed", wire.succeedBody);
export const fail = post("fail", wire.failBody);

/** The (local) trainer process announces that it started: the jobs it was running are lost. */
export const trainerStarted = createRoute({ hide: true, method: "post", path: wire.TRAINER_STARTED_PATH, responses: ok });
