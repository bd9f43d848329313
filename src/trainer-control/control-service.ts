/**
 * What the trainer may do through the Worker's internal control routes, for any kind of job:
 * learn its task, read its frame, report progress, succeed or fail. Everything is scoped to one
 * running job and checked against the attempt token the trainer was given (./control-scope), so
 * a trainer whose job was canceled or restarted can no longer read or write anything; what
 * differs by kind comes from the table of kinds (./job-kinds). The routes only one kind uses are
 * with that kind: ./training-control, ./batch-control, ./ingest-control, ./frame-upload-control.
 */

import type { TaskAnswer } from "../container/wire";
import { NotFound } from "../core/errors";
import { TRAINER_R2_URL_TTL_S } from "../core/limits";
import { type Failure, recordFailure } from "../jobs/attempts";
import { dispatch } from "../jobs/service";
import type { JsonObject, ProgressReport } from "../jobs/types";
import { presignGet } from "../storage/presign";
import { type ControlDeps, runningJob, trainerJob } from "./control-scope";
import { kindOf } from "./job-kinds";

export type { ControlDeps } from "./control-scope";

/** The job's kind and task. */
export async function taskOf(deps: ControlDeps, jobId: string, attempt: number): Promise<TaskAnswer> {
  const r = await runningJob(deps, jobId, attempt);
  const task = await kindOf(r).task(deps, r);
  // the kind and its task, which TypeScript cannot tie together through the table
  return { job_id: r.job.id, attempt, kind: r.job.type, task } as TaskAnswer;
}

/** The frame the job reads, as `read` gets it (its body, or its metadata); 404 for a kind that reads none. */
async function jobFrame<T>(deps: ControlDeps, jobId: string, attempt: number, read: (key: string) => Promise<T | null>): Promise<T> {
  const r = await runningJob(deps, jobId, attempt);
  const kind = kindOf(r);
  if (!kind.readFrame) throw new NotFound();
  return kind.readFrame(deps, r, read);
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

export async function reportProgress(deps: ControlDeps, jobId: string, attempt: number, r: ProgressReport & { rows_processed?: number }) {
  const { jobObj } = await trainerJob(deps, jobId, attempt);
  const { canceled } = await jobObj.report(r, attempt);
  return { canceled };
}

export async function succeed(deps: ControlDeps, jobId: string, attempt: number, output: JsonObject) {
  const r = await runningJob(deps, jobId, attempt);
  return kindOf(r).succeed(deps, r, output);
}

/**
 * The trainer could not finish: settled by the jobs' attempt policy (fail now, or queue the job
 * again after a back-off, until the last attempt).
 */
export async function fail(deps: ControlDeps, jobId: string, attempt: number, f: Failure) {
  const { jobObj } = await trainerJob(deps, jobId, attempt);
  return { ok: await recordFailure(jobObj, attempt, f, (delaySeconds) => dispatch(deps.queue, jobId, delaySeconds)) };
}

/** The trainer is stopping before the attempt finished: the job runs again at once elsewhere, the attempt not counted as a failure. */
export async function handBack(deps: ControlDeps, jobId: string, attempt: number, reason: string) {
  const { jobObj } = await trainerJob(deps, jobId, attempt);
  return { ok: await jobObj.handBack(reason, attempt) };
}
