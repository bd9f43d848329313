/**
 * Who may use the internal control routes: a trainer working on one running job, showing the
 * attempt token it was given. Every call is a heartbeat; a canceled, finished or taken-over job
 * answers 409 so that the trainer stops.
 */
import { Conflict, NotFound } from "../core/errors";
import type { Db } from "../db/client";
import { JobInputError } from "../jobs/errors";
import { type JobNamespace, type JobObject, jobObject } from "../jobs/job-object";
import type { JobRecord, JobType } from "../jobs/types";
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
}

/** The job types a trainer works on. */
const TRAINER_JOB_TYPES: ReadonlySet<JobType> = new Set<JobType>(["train", "infer_batch", "dataset_ingest"]);

/** The job is canceled, finished or taken over by another attempt: the trainer must stop. */
export const stopWork = () => new Conflict("The job is no longer running for this attempt; stop working on it.");

/** The job's object, when it is a job a trainer works on: the routes serve nothing else. */
export async function trainerJobObject(deps: ControlDeps, jobId: string): Promise<{ jobObj: JobObject; job: JobRecord }> {
  const jobObj = jobObject(deps.jobs, jobId);
  const job = await jobObj.get();
  if (!job || !TRAINER_JOB_TYPES.has(job.type)) throw new NotFound();
  return { jobObj, job };
}

/** The job, running for this attempt (a heartbeat as a side effect), or 409. */
export async function runningJob(deps: ControlDeps, jobId: string, attempt: number): Promise<{ jobObj: JobObject; job: JobRecord }> {
  const found = await trainerJobObject(deps, jobId);
  const { canceled } = await found.jobObj.report({}, attempt);
  if (canceled) throw stopWork();
  return found;
}

/** Resolves what the job works on; when its model or data is gone, the job fails and the trainer stops. */
export async function resolveOrFail<T>(jobObj: JobObject, attempt: number, resolve: () => Promise<T>): Promise<T> {
  try {
    return await resolve();
  } catch (e) {
    if (e instanceof JobInputError) {
      await jobObj.fail(e.message, attempt);
      throw stopWork();
    }
    throw e;
  }
}
