/**
 * Who may use the internal control routes: a trainer working on one running job, showing the
 * attempt token it was given. Every call is a heartbeat; a canceled, finished or taken-over job
 * answers 409 so that the trainer stops. A route that belongs to another job kind answers 404.
 */

import { TRAINER_JOB_KINDS, type TrainerJobKind } from "../container/wire";
import { Conflict, NotFound } from "../core/errors";
import type { Db } from "../db/client";
import { JobInputError } from "../jobs/errors";
import { type JobNamespace, type JobObject, jobObject } from "../jobs/job-object";
import type { JobRecord } from "../jobs/types";
import type { S3Config } from "../storage/presign";

export interface ControlDeps {
  db: Db;
  bucket: R2Bucket;
  jobs: JobNamespace;
  queue: Queue;
  /**
   * The bucket's S3 API, when configured: the trainer is then handed presigned URLs and moves the
   * bytes (source files, frame parts, the frame it trains on) straight to and from R2; without it
   * (the test pool) they pass through the control routes.
   */
  s3: S3Config | null;
  /** Trainer instances a model search may run its trials on at once (./trainer-client's searchInstances). */
  searchInstances: number;
}

/** A job a trainer works on, as one control call sees it: its object, its record, the caller's attempt. */
export interface TrainerJob<K extends TrainerJobKind = TrainerJobKind> {
  jobObj: JobObject;
  job: JobRecord & { type: K };
  attempt: number;
}

const KINDS: ReadonlySet<string> = new Set(TRAINER_JOB_KINDS);
const isTrainerJob = (job: JobRecord): job is JobRecord & { type: TrainerJobKind } => KINDS.has(job.type);

/** The job is canceled, finished or taken over by another attempt: the trainer must stop. */
export const stopWork = () => new Conflict("The job is no longer running for this attempt; stop working on it.");

/** The job, when it is one a trainer works on (the routes serve nothing else), running or not. */
export async function trainerJob(deps: ControlDeps, jobId: string, attempt: number): Promise<TrainerJob> {
  const jobObj = jobObject(deps.jobs, jobId);
  const job = await jobObj.get();
  if (!job || !isTrainerJob(job)) throw new NotFound();
  return { jobObj, job, attempt };
}

/** The job, running for this attempt (a heartbeat as a side effect), or 409. */
export async function runningJob(deps: ControlDeps, jobId: string, attempt: number): Promise<TrainerJob> {
  const found = await trainerJob(deps, jobId, attempt);
  const { canceled } = await found.jobObj.report({}, attempt);
  if (canceled) throw stopWork();
  return found;
}

/** The running job of a route that only `kind` uses (404 for a job of another kind). */
export async function runningJobOf<K extends TrainerJobKind>(deps: ControlDeps, jobId: string, attempt: number, kind: K): Promise<TrainerJob<K>> {
  const running = await runningJob(deps, jobId, attempt);
  if (!isKind(running, kind)) throw new NotFound();
  return running;
}

export function isKind<K extends TrainerJobKind>(r: TrainerJob, kind: K): r is TrainerJob<K> {
  return r.job.type === kind;
}

/** Resolves what the job works on; when its model or data is gone, the job fails and the trainer stops. */
export async function resolveOrFail<T>(r: TrainerJob, resolve: () => Promise<T>): Promise<T> {
  try {
    return await resolve();
  } catch (e) {
    if (e instanceof JobInputError) {
      await r.jobObj.fail(e.message, r.attempt);
      throw stopWork();
    }
    throw e;
  }
}
