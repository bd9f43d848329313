/**
 * An ingest job stores its frame as an R2 multipart upload (../storage/frame-parts): begun, sent
 * part by part (each part retried alone by the trainer; straight to R2 with presigned URLs when
 * the S3 API is configured, each signed when it is ready, else through the route below), then
 * completed into the one object at the version's frame key that everything else reads, or
 * aborted. Every step but the abort is checked against the attempt token like the other control
 * routes, so a stale attempt gets 409; an abort is cleanup, allowed after a cancel too.
 */

import type { UploadedPart } from "../container/wire";
import { BadRequest, NotFound, TooLarge } from "../core/errors";
import { TRAINER_R2_URL_TTL_S } from "../core/limits";
import { ingestSources } from "../datasets/ingest-job";
import { JobInputError } from "../jobs/errors";
import { FRAME_PART_BYTES, MAX_FRAME_PARTS } from "../storage/frame-parts";
import { frameKey } from "../storage/keys";
import { presignUploadPart } from "../storage/presign";
import { type ControlDeps, isKind, resolveOrFail, runningJobOf, trainerJob } from "./control-scope";

/** The running ingest job's frame key (404 for other jobs, 409 for a stale attempt). */
async function frameKeyOf(deps: ControlDeps, jobId: string, attempt: number): Promise<string> {
  const r = await runningJobOf(deps, jobId, attempt, "dataset_ingest");
  const { version } = await resolveOrFail(r, () => ingestSources(deps.db, r.job));
  return frameKey(version.orgId, version.datasetId, version.id);
}

/**
 * Begins the upload. The trainer then asks for each part's URL when the part is ready
 * (signFramePart: a frame written while its file is read has no known size at begin) and PUTs
 * it there, straight to R2, or to the `frame/parts/{n}` route without the S3 API. An upload begun
 * by the binding takes S3 API parts (R2 documents the two as one multipart upload; the local
 * endpoint runs the same binding calls).
 */
export async function beginFrameUpload(deps: ControlDeps, jobId: string, attempt: number): Promise<{ upload_id: string }> {
  const key = await frameKeyOf(deps, jobId, attempt);
  // Marks the frame as this attempt's, so that a repeated complete can recognize it (below).
  const upload = await deps.bucket.createMultipartUpload(key, { customMetadata: storedBy(jobId, attempt) });
  return { upload_id: upload.uploadId };
}

/**
 * One part's presigned UploadPart URL, asked for when the part is ready: a frame written while
 * its sources are read has no known size at begin. Signed for the part's exact length;
 * `url: null` without the S3 API (PUT `frame/parts/{n}`).
 */
export async function signFramePart(
  deps: ControlDeps,
  jobId: string,
  attempt: number,
  uploadId: string,
  partNumber: number,
  bytes: number,
): Promise<{ url: string | null }> {
  if (bytes > FRAME_PART_BYTES) throw new TooLarge(`A frame part holds at most ${FRAME_PART_BYTES} bytes.`, FRAME_PART_BYTES);
  if (partNumber > MAX_FRAME_PARTS) throw new BadRequest(`A frame has at most ${MAX_FRAME_PARTS} parts.`);
  const key = await frameKeyOf(deps, jobId, attempt);
  if (!deps.s3) return { url: null };
  return { url: await presignUploadPart(deps.s3, key, { uploadId, partNumber, bytes, expiresS: TRAINER_R2_URL_TTL_S }) };
}

export async function putFramePart(
  deps: ControlDeps,
  jobId: string,
  attempt: number,
  uploadId: string,
  partNumber: number,
  length: number,
  body: ReadableStream<Uint8Array>,
): Promise<UploadedPart> {
  if (length > FRAME_PART_BYTES) throw new TooLarge(`A frame part holds at most ${FRAME_PART_BYTES} bytes.`, FRAME_PART_BYTES);
  if (partNumber > MAX_FRAME_PARTS) throw new BadRequest(`A frame has at most ${MAX_FRAME_PARTS} parts.`);
  const key = await frameKeyOf(deps, jobId, attempt);
  // An R2 error here is answered 500, which the trainer retries: the part is sent again alone.
  const part = await deps.bucket.resumeMultipartUpload(key, uploadId).uploadPart(partNumber, body);
  return { part_number: part.partNumber, etag: part.etag };
}

/**
 * Joins the parts into the frame. The parts must be numbered 1..n with none missing, and the
 * result must be `bytes` long: a frame with a hole would decode to wrong columns, not fail.
 */
export async function completeFrameUpload(
  deps: ControlDeps,
  jobId: string,
  attempt: number,
  uploadId: string,
  parts: UploadedPart[],
  bytes: number,
): Promise<{ bytes: number }> {
  parts.forEach((p, i) => {
    if (p.part_number !== i + 1) throw new BadRequest(`Frame part ${i + 1} is missing: parts must be numbered 1..n in order.`);
  });
  const key = await frameKeyOf(deps, jobId, attempt);
  const upload = deps.bucket.resumeMultipartUpload(key, uploadId);
  const obj = await r2Step(
    "join the frame's parts",
    // An S3 UploadPart answers its ETag quoted ("…"), the binding's uploadPart without quotes;
    // the binding's complete takes the latter.
    () => upload.complete(parts.map((p) => ({ partNumber: p.part_number, etag: p.etag.replace(/^"|"$/g, "") }))),
    async () => {
      // A complete sent again (its first answer lost on the network) finds the upload gone and
      // this attempt's frame stored: done.
      const stored = await deps.bucket.head(key);
      const mine = stored?.customMetadata?.job === jobId && stored.customMetadata.attempt === String(attempt);
      return mine && stored.size === bytes ? stored : null;
    },
  );
  if (obj.size !== bytes) {
    await deps.bucket.delete(key);
    throw new BadRequest(`The joined frame has ${obj.size} bytes, not the ${bytes} announced; it was discarded.`);
  }
  return { bytes: obj.size };
}

/**
 * Aborts the upload `uploadId` of the job's frame. Not refused to an attempt that is no longer
 * running: the frame is stored while the file is read, so a job canceled (or taken over) mid-read
 * has parts to drop, and only the attempt that began the upload knows its id.
 */
export async function abortFrameUpload(deps: ControlDeps, jobId: string, attempt: number, uploadId: string): Promise<{ ok: true }> {
  const r = await trainerJob(deps, jobId, attempt);
  if (!isKind(r, "dataset_ingest")) throw new NotFound();
  const sources = await ingestSources(deps.db, r.job).catch((e) => {
    if (e instanceof JobInputError) return null; // the version is gone, and its frame with it
    throw e;
  });
  if (!sources) return { ok: true };
  const key = frameKey(sources.version.orgId, sources.version.datasetId, sources.version.id);
  await r2Step("abort the frame upload", () => deps.bucket.resumeMultipartUpload(key, uploadId).abort());
  return { ok: true };
}

const storedBy = (jobId: string, attempt: number) => ({ job: jobId, attempt: String(attempt) });

/**
 * R2 refuses an unknown upload, part or etag with a plain Error: the trainer's mistake, so a 400
 * naming it, unless `settled` finds that the step had already been done.
 */
async function r2Step<T>(what: string, step: () => Promise<T>, settled: () => Promise<T | null> = async () => null): Promise<T> {
  try {
    return await step();
  } catch (e) {
    const done = await settled();
    if (done) return done;
    throw new BadRequest(`Could not ${what}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
