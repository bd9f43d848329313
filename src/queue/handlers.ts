import { createDb } from "../db/client";
import { runIngestJob } from "../datasets/ingest-job";
import type { JobRecord, JobType, JsonObject } from "../jobs/types";
import type { JobControl } from "./control";

/** What the work of a job gets: plain bindings, never a request context. */
export interface WorkDeps {
  env: Env;
  bucket: R2Bucket;
}

export interface JobOutcome {
  output: JsonObject;
  rowsProcessed: number;
}

export type JobHandler = (deps: WorkDeps, job: JobRecord, control: JobControl) => Promise<JobOutcome>;

/** Job type → its work. Types without a handler here fail with a clear message. */
export const jobHandlers: Partial<Record<JobType, JobHandler>> = {
  dataset_ingest: (deps, job, control) => runIngestJob({ db: createDb(deps.env.DB), bucket: deps.bucket }, job, control),
};
