/**
 * What the trainer may do, through the Worker's internal control routes: everything is scoped to
 * one running job and checked against the attempt token the trainer was given, so a trainer
 * whose job was canceled or restarted can no longer read or write anything.
 */
import { Conflict, NotFound } from "../core/errors";
import type { Db } from "../db/client";
import { type Failure, recordFailure } from "../jobs/attempts";
import { JobInputError } from "../jobs/errors";
import { type JobNamespace, type JobObject, jobObject } from "../jobs/job-object";
import { dispatch } from "../jobs/service";
import type { JobRecord, JsonObject, ProgressReport } from "../jobs/types";
import { ARTIFACT_FILES } from "../storage/keys";
import { completeTraining } from "./finalize";
import { type TrainingTarget, trainingTarget } from "./target";

export interface ControlDeps {
  db: Db;
  bucket: R2Bucket;
  jobs: JobNamespace;
  queue: Queue;
}

/** The job is canceled, finished or taken over by another attempt: the trainer must stop. */
const stopWork = () => new Conflict("The job is no longer running for this attempt; stop working on it.");

interface Scoped {
  jobObj: JobObject;
  job: JobRecord;
  target: TrainingTarget;
}

/** The job's object, when it is a training job: the routes serve nothing else. */
async function trainJobObject(deps: ControlDeps, jobId: string): Promise<{ jobObj: JobObject; job: JobRecord }> {
  const jobObj = jobObject(deps.jobs, jobId);
  const job = await jobObj.get();
  if (job?.type !== "train") throw new NotFound();
  return { jobObj, job };
}

/** The running training job for this attempt (a heartbeat as a side effect), or 409. */
async function scoped(deps: ControlDeps, jobId: string, attempt: number): Promise<Scoped> {
  const { jobObj, job } = await trainJobObject(deps, jobId);
  const { canceled } = await jobObj.report({}, attempt);
  if (canceled) throw stopWork();
  try {
    return { jobObj, job, target: await trainingTarget(deps.db, job) };
  } catch (e) {
    // The model or the data is gone: nothing to train any more.
    if (e instanceof JobInputError) {
      await jobObj.fail(e.message, attempt);
      throw stopWork();
    }
    throw e;
  }
}

export async function taskOf(deps: ControlDeps, jobId: string, attempt: number) {
  const { job, target } = await scoped(deps, jobId, attempt);
  return { job_id: job.id, attempt, task: target.task };
}

export async function readFrame(deps: ControlDeps, jobId: string, attempt: number): Promise<R2ObjectBody> {
  const { target } = await scoped(deps, jobId, attempt);
  const obj = await deps.bucket.get(target.frameKey);
  if (!obj) throw new NotFound("The training data is missing from storage.");
  return obj;
}

export async function readRepresentation(deps: ControlDeps, jobId: string, attempt: number): Promise<R2ObjectBody | null> {
  const { target } = await scoped(deps, jobId, attempt);
  return deps.bucket.get(target.representationKey);
}

export async function writeRepresentation(deps: ControlDeps, jobId: string, attempt: number, body: ArrayBuffer): Promise<void> {
  const { target } = await scoped(deps, jobId, attempt);
  await deps.bucket.put(target.representationKey, body, { httpMetadata: { contentType: "application/json" } });
}

const ARTIFACT_NAMES: ReadonlySet<string> = new Set(Object.values(ARTIFACT_FILES));

export async function writeArtifact(deps: ControlDeps, jobId: string, attempt: number, file: string, body: ArrayBuffer): Promise<void> {
  if (!ARTIFACT_NAMES.has(file)) throw new NotFound();
  const { target } = await scoped(deps, jobId, attempt);
  await deps.bucket.put(target.artifactPrefix + file, body);
}

export async function reportProgress(deps: ControlDeps, jobId: string, attempt: number, r: ProgressReport & { rows_processed?: number }) {
  const { jobObj } = await trainJobObject(deps, jobId);
  const { canceled } = await jobObj.report(r, attempt);
  return { canceled };
}

export async function succeedTraining(deps: ControlDeps, jobId: string, attempt: number, output: JsonObject) {
  const { jobObj, job, target } = await scoped(deps, jobId, attempt);
  const ok = await completeTraining(deps, job, target, output, (out, rows) => jobObj.succeed(out, rows, attempt));
  if (!ok) throw stopWork();
  return { ok };
}

/**
 * The trainer could not finish: settled by the jobs' attempt policy (fail now, or queue the job
 * again after a back-off, until the last attempt).
 */
export async function failTraining(deps: ControlDeps, jobId: string, attempt: number, f: Failure) {
  const { jobObj } = await trainJobObject(deps, jobId);
  return { ok: await recordFailure(jobObj, attempt, f, (delaySeconds) => dispatch(deps.queue, jobId, delaySeconds)) };
}
