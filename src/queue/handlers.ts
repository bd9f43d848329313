import { createDb } from "../db/client";
import { runIngestJob } from "../datasets/ingest-job";
import { runTrainJob } from "../training/train-job";
import type { JobRecord, JobType, JsonObject } from "../jobs/types";
import type { JobControl } from "./control";

/** What the work of a job gets: plain bindings, never a request context. */
export interface WorkDeps {
  env: Env;
  bucket: R2Bucket;
}

/**
 * The result of a job's work: its output, for the consumer to record; or `settled` when the work
 * recorded its end itself (training finalizes its model version first) or continues elsewhere
 * (handed to the trainer, which reports back through the internal control routes).
 */
export type JobOutcome = { output: JsonObject; rowsProcessed: number } | { settled: true };

export type JobHandler = (deps: WorkDeps, job: JobRecord, control: JobControl) => Promise<JobOutcome>;

/** Job type → its work. Types without a handler here fail with a clear message. */
export const jobHandlers: Partial<Record<JobType, JobHandler>> = {
  dataset_ingest: (deps, job, control) => runIngestJob({ db: createDb(deps.env.DB), bucket: deps.bucket }, job, control),
  train: (deps, job, control) => runTrainJob(deps, job, control),
};
