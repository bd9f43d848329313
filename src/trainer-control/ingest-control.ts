/**
 * The control routes' side of a `dataset_ingest` job run by the trainer (uploads larger than the
 * Worker can hold): the files to read, where the frame and its preview go, and the recording of
 * the result on the dataset version when the trainer succeeds.
 */
import { BadRequest, Conflict, InvalidInput, NotFound } from "../core/errors";
import { TRAINER_R2_URL_TTL_S, WORKER_INGEST_MAX_BYTES } from "../core/limits";
import { checkSource, type IngestSummary, ingestSources, openSource, recordIngest } from "../datasets/ingest-job";
import type { JsonObject } from "../jobs/types";
import { frameKey, previewKey } from "../storage/keys";
import { presignGet } from "../storage/presign";
import { type ControlDeps, resolveOrFail, runningJobOf, stopWork, type TrainerJob } from "./control-scope";
import type { TrainerKind } from "./trainer-kind";

const sources = (deps: ControlDeps, r: TrainerJob<"dataset_ingest">) => resolveOrFail(r, () => ingestSources(deps.db, r.job));

export const ingestKind: TrainerKind<"dataset_ingest"> = {
  async task(deps, r) {
    const { files, format, totalBytes } = await sources(deps, r);
    const s3 = deps.s3;
    const listed = await Promise.all(
      files.map(async (f) => {
        if (!s3) return { filename: f.filename, bytes: f.bytes };
        // A file gone from storage fails the job here, as reading it through the route would.
        await resolveOrFail(r, () => checkSource(deps.bucket, f));
        return { filename: f.filename, bytes: f.bytes, url: await presignGet(s3, f.objectKey, TRAINER_R2_URL_TTL_S) };
      }),
    );
    // the cells it may read the trainer knows from its own memory (src/container/trainer-memory.ts)
    return { format, files: listed, total_bytes: totalBytes };
  },
  /** `output.summary` (the frame's shape and profile) is recorded on the version; the rest is the job's output. */
  async succeed(deps, r, output) {
    const { version } = await sources(deps, r);
    const { summary, ...shown } = output as JsonObject & { summary: IngestSummary };
    if (!summary || !Array.isArray(summary.profile)) throw new BadRequest("An ingest outcome carries output.summary (shape and profile).");
    const key = frameKey(version.orgId, version.datasetId, version.id);
    if (!(await deps.bucket.head(key))) throw new Conflict("The frame was not stored; PUT it before succeeding.");
    await recordIngest(deps.db, version.id, key, summary);
    if (!(await r.jobObj.succeed(shown, summary.rowCount, r.attempt))) throw stopWork();
    return { ok: true };
  },
  // uploads within the Worker's limit are ingested by the queue consumer (a small one the Worker
  // found too large and handed over is left to the heartbeat timeout)
  ranOnTrainer: (job) => Number(job.input?.bytes ?? 0) > WORKER_INGEST_MAX_BYTES,
};

/** Bytes first..last of a file, both included (an HTTP Range). */
export interface ByteRange {
  first: number;
  last: number;
}

/**
 * An ingest job reads uploaded file `index`, whole or the bytes of `range` (a last byte past the
 * end means up to the end, as in HTTP; a range starting past it is refused): its stream, its
 * size, the range served.
 */
export async function readSource(deps: ControlDeps, jobId: string, attempt: number, index: number, range?: ByteRange) {
  const r = await runningJobOf(deps, jobId, attempt, "dataset_ingest");
  const { files } = await sources(deps, r);
  const f = files[index];
  if (!f) throw new NotFound();
  if (range && (range.first > range.last || range.first >= f.bytes)) {
    const message = `The range must start before the end of the file (${f.bytes} bytes) and not end before it starts.`;
    throw new InvalidInput([{ path: ["range"], message, type: "value_error", input: `bytes=${range.first}-${range.last}`, part: "header" }]);
  }
  const served = range && { first: range.first, last: Math.min(range.last, f.bytes - 1) };
  const body = await resolveOrFail(r, () => openSource(deps.bucket, f, served && { offset: served.first, length: served.last - served.first + 1 }));
  return { body, size: f.bytes, range: served };
}

/** An ingest job writes the frame's first rows, streamed into R2 (the frame itself is stored in parts: ./frame-upload-control). */
export async function writePreview(deps: ControlDeps, jobId: string, attempt: number, body: ReadableStream<Uint8Array>) {
  const r = await runningJobOf(deps, jobId, attempt, "dataset_ingest");
  const { version } = await sources(deps, r);
  await deps.bucket.put(previewKey(version.orgId, version.datasetId, version.id), body);
}
