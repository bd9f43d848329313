/**
 * The control routes' side of a `dataset_ingest` job run by the trainer (uploads larger than the
 * Worker can hold): the files to read, where the frame and its preview go, and the recording of
 * the result on the dataset version when the trainer succeeds.
 */
import { BadRequest, Conflict, InvalidInput, NotFound } from "../core/errors";
import { TRAINER_MAX_FRAME_CELLS, TRAINER_R2_URL_TTL_S } from "../core/limits";
import { checkSource, type IngestSummary, ingestSources, openSource, recordIngest } from "../datasets/ingest-job";
import type { JobObject } from "../jobs/job-object";
import type { JobRecord, JsonObject } from "../jobs/types";
import { frameKey, previewKey } from "../storage/keys";
import { presignGet } from "../storage/presign";
import { type ControlDeps, resolveOrFail, stopWork } from "./control-scope";

/** What the trainer is told to do for a dataset_ingest job. */
export interface IngestTask {
  format: "csv" | "parquet";
  /**
   * `url`: a presigned GET of the file straight from R2 (when the S3 API is configured); without
   * it the trainer reads file i from the route `sources/{i}`.
   */
  files: { filename: string; bytes: number; url?: string }[];
  total_bytes: number;
  max_cells: number;
}

const sources = (deps: ControlDeps, jobObj: JobObject, job: JobRecord, attempt: number) =>
  resolveOrFail(jobObj, attempt, () => ingestSources(deps.db, job));

export async function ingestTask(deps: ControlDeps, jobObj: JobObject, job: JobRecord, attempt: number): Promise<IngestTask> {
  const { files, format, totalBytes } = await sources(deps, jobObj, job, attempt);
  const s3 = deps.s3;
  const listed = await Promise.all(
    files.map(async (f) => {
      if (!s3) return { filename: f.filename, bytes: f.bytes };
      // A file gone from storage fails the job here, as reading it through the route would.
      await resolveOrFail(jobObj, attempt, () => checkSource(deps.bucket, f));
      return { filename: f.filename, bytes: f.bytes, url: await presignGet(s3, f.objectKey, TRAINER_R2_URL_TTL_S) };
    }),
  );
  return { format, files: listed, total_bytes: totalBytes, max_cells: TRAINER_MAX_FRAME_CELLS };
}

/** Bytes first..last of a file, both included (an HTTP Range). */
export interface ByteRange {
  first: number;
  last: number;
}

/**
 * Uploaded file `index`, whole or the bytes of `range` (a last byte past the end means up to the
 * end, as in HTTP; a range starting past it is refused): its stream, its size, the range served.
 */
export async function readIngestSource(deps: ControlDeps, jobObj: JobObject, job: JobRecord, attempt: number, index: number, range?: ByteRange) {
  const { files } = await sources(deps, jobObj, job, attempt);
  const f = files[index];
  if (!f) throw new NotFound();
  if (range && (range.first > range.last || range.first >= f.bytes)) {
    const message = `The range must start before the end of the file (${f.bytes} bytes) and not end before it starts.`;
    throw new InvalidInput([{ path: ["range"], message, type: "value_error", input: `bytes=${range.first}-${range.last}`, part: "header" }]);
  }
  const served = range && { first: range.first, last: Math.min(range.last, f.bytes - 1) };
  const body = await resolveOrFail(jobObj, attempt, () =>
    openSource(deps.bucket, f, served && { offset: served.first, length: served.last - served.first + 1 }),
  );
  return { body, size: f.bytes, range: served };
}

/** The frame's first rows, streamed into R2 (the frame itself is stored in parts: ./frame-upload-control). */
export async function writeIngestPreview(deps: ControlDeps, jobObj: JobObject, job: JobRecord, attempt: number, body: ReadableStream<Uint8Array>) {
  const { version } = await sources(deps, jobObj, job, attempt);
  await deps.bucket.put(previewKey(version.orgId, version.datasetId, version.id), body);
}

/** `output.summary` (the frame's shape and profile) is recorded on the version; the rest is the job's output. */
export async function succeedIngest(deps: ControlDeps, jobObj: JobObject, job: JobRecord, attempt: number, output: JsonObject) {
  const { version } = await sources(deps, jobObj, job, attempt);
  const { summary, ...shown } = output as JsonObject & { summary: IngestSummary };
  if (!summary || !Array.isArray(summary.profile)) throw new BadRequest("An ingest outcome carries output.summary (shape and profile).");
  const key = frameKey(version.orgId, version.datasetId, version.id);
  if (!(await deps.bucket.head(key))) throw new Conflict("The frame was not stored; PUT it before succeeding.");
  await recordIngest(deps.db, version.id, key, summary);
  if (!(await jobObj.succeed(shown, summary.rowCount, attempt))) throw stopWork();
  return { ok: true };
}
