/**
 * What the trainer may do, through the Worker's internal control routes: everything is scoped to
 * one running job and checked against the attempt token the trainer was given (./control-scope),
 * so a trainer whose job was canceled or restarted can no longer read or write anything. Training
 * jobs are served here; batch inference jobs by ./batch-control, ingest jobs by ./ingest-control
 * (their frame by ./frame-upload-control).
 */
import { NotFound } from "../core/errors";
import { TRAINER_R2_URL_TTL_S } from "../core/limits";
import { type Failure, recordFailure } from "../jobs/attempts";
import { dispatch } from "../jobs/service";
import type { JsonObject, ProgressReport } from "../jobs/types";
import { ARTIFACT_FILES } from "../storage/keys";
import { presignGet } from "../storage/presign";
import { batchTask, readBatchArtifact, readBatchFrame, succeedBatch, writeBatchResult } from "./batch-control";
import { type ControlDeps, resolveOrFail, runningJob, stopWork, trainerJobObject } from "./control-scope";
import { completeTraining } from "./finalize";
import { type ByteRange, ingestTask, readIngestSource, succeedIngest, writeIngestPreview } from "./ingest-control";
import { type TrainingTarget, trainingTarget } from "./target";

export type { ControlDeps } from "./control-scope";

type Running = Awaited<ReturnType<typeof runningJob>>;

/** Where a running training job reads and writes (404 for other jobs). */
async function trainingScope(deps: ControlDeps, { jobObj, job }: Running, attempt: number): Promise<TrainingTarget> {
  if (job.type !== "train") throw new NotFound();
  return resolveOrFail(jobObj, attempt, () => trainingTarget(deps.db, job));
}

const scopedTraining = async (deps: ControlDeps, jobId: string, attempt: number) =>
  trainingScope(deps, await runningJob(deps, jobId, attempt), attempt);

/** The job's kind and task: a training (./io TrainingTask), a batch inference (BatchTask) or an ingest (IngestTask). */
export async function taskOf(deps: ControlDeps, jobId: string, attempt: number) {
  const running = await runningJob(deps, jobId, attempt);
  const { jobObj, job } = running;
  if (job.type === "infer_batch") return { job_id: job.id, attempt, kind: job.type, task: await batchTask(deps, jobObj, job, attempt) };
  if (job.type === "dataset_ingest") return { job_id: job.id, attempt, kind: job.type, task: await ingestTask(deps, jobObj, job, attempt) };
  const target = await trainingScope(deps, running, attempt);
  return { job_id: job.id, attempt, kind: job.type, task: target.task };
}

/** The frame a training or a batch inference reads, as `read` gets it (its body, or its metadata). */
async function jobFrame<T>(deps: ControlDeps, jobId: string, attempt: number, read: (key: string) => Promise<T | null>): Promise<T> {
  const running = await runningJob(deps, jobId, attempt);
  if (running.job.type === "infer_batch") return readBatchFrame(deps, running.jobObj, running.job, attempt, read);
  const target = await trainingScope(deps, running, attempt);
  const obj = await read(target.frameKey);
  if (!obj) throw new NotFound("The training data is missing from storage.");
  return obj;
}

export function readFrame(deps: ControlDeps, jobId: string, attempt: number): Promise<R2ObjectBody> {
  return jobFrame(deps, jobId, attempt, (key) => deps.bucket.get(key));
}

/**
 * Where the trainer reads the job's frame: a presigned GET straight from R2 when the S3 API is
 * configured, else `url: null` (GET the frame route). Checked to exist either way, so a missing
 * frame fails the same.
 */
export async function frameLocation(deps: ControlDeps, jobId: string, attempt: number): Promise<{ url: string | null; bytes: number }> {
  const obj = await jobFrame(deps, jobId, attempt, (key) => deps.bucket.head(key));
  return { url: deps.s3 ? await presignGet(deps.s3, obj.key, TRAINER_R2_URL_TTL_S) : null, bytes: obj.size };
}

export async function readRepresentation(deps: ControlDeps, jobId: string, attempt: number): Promise<R2ObjectBody | null> {
  const target = await scopedTraining(deps, jobId, attempt);
  return deps.bucket.get(target.representationKey);
}

export async function writeRepresentation(deps: ControlDeps, jobId: string, attempt: number, body: ArrayBuffer): Promise<void> {
  const target = await scopedTraining(deps, jobId, attempt);
  await deps.bucket.put(target.representationKey, body, { httpMetadata: { contentType: "application/json" } });
}

const ARTIFACT_NAMES: ReadonlySet<string> = new Set(Object.values(ARTIFACT_FILES));

export async function writeArtifact(deps: ControlDeps, jobId: string, attempt: number, file: string, body: ArrayBuffer): Promise<void> {
  if (!ARTIFACT_NAMES.has(file)) throw new NotFound();
  const target = await scopedTraining(deps, jobId, attempt);
  await deps.bucket.put(target.artifactPrefix + file, body);
}

/** An ingest job reads the uploaded files, by their index in its task: whole, or bytes first..last. */
export async function readSource(deps: ControlDeps, jobId: string, attempt: number, index: number, range?: ByteRange) {
  const { jobObj, job } = await runningJob(deps, jobId, attempt);
  if (job.type !== "dataset_ingest") throw new NotFound();
  return readIngestSource(deps, jobObj, job, attempt, index, range);
}

/** An ingest job writes the dataset version's preview (its frame goes in parts: ./frame-upload-control). */
export async function writePreview(deps: ControlDeps, jobId: string, attempt: number, body: ReadableStream<Uint8Array>) {
  const { jobObj, job } = await runningJob(deps, jobId, attempt);
  if (job.type !== "dataset_ingest") throw new NotFound();
  await writeIngestPreview(deps, jobObj, job, attempt, body);
}

/** A batch inference job reads its model version's files. */
export async function readArtifact(deps: ControlDeps, jobId: string, attempt: number, file: string): Promise<R2ObjectBody> {
  const { jobObj, job } = await runningJob(deps, jobId, attempt);
  if (job.type !== "infer_batch") throw new NotFound();
  return readBatchArtifact(deps, jobObj, job, attempt, file);
}

/** A batch inference job writes its result files. */
export async function writeResult(deps: ControlDeps, jobId: string, attempt: number, name: string, body: ArrayBuffer): Promise<void> {
  const { jobObj, job } = await runningJob(deps, jobId, attempt);
  if (job.type !== "infer_batch") throw new NotFound();
  await writeBatchResult(deps, jobObj, job, attempt, name, body);
}

export async function reportProgress(deps: ControlDeps, jobId: string, attempt: number, r: ProgressReport & { rows_processed?: number }) {
  const { jobObj } = await trainerJobObject(deps, jobId);
  const { canceled } = await jobObj.report(r, attempt);
  return { canceled };
}

export async function succeed(deps: ControlDeps, jobId: string, attempt: number, output: JsonObject) {
  const running = await runningJob(deps, jobId, attempt);
  const { jobObj, job } = running;
  if (job.type === "infer_batch") return succeedBatch(deps, jobObj, job, attempt, output);
  if (job.type === "dataset_ingest") return succeedIngest(deps, jobObj, job, attempt, output);
  const target = await trainingScope(deps, running, attempt);
  const ok = await completeTraining(deps, job, target, output, (out, rows) => jobObj.succeed(out, rows, attempt));
  if (!ok) throw stopWork();
  return { ok };
}

/**
 * The trainer could not finish: settled by the jobs' attempt policy (fail now, or queue the job
 * again after a back-off, until the last attempt).
 */
export async function fail(deps: ControlDeps, jobId: string, attempt: number, f: Failure) {
  const { jobObj } = await trainerJobObject(deps, jobId);
  return { ok: await recordFailure(jobObj, attempt, f, (delaySeconds) => dispatch(deps.queue, jobId, delaySeconds)) };
}
