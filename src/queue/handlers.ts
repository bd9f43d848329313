import { runIngestJob } from "../datasets/ingest-job";
import { createDb } from "../db/client";
import type { JobType } from "../jobs/types";
import type { JobHandler } from "../jobs/work";
import { runExplainJob } from "../models/explain-job";
import { runInferBatchJob } from "../models/infer-batch-job";
import { runTrainJob } from "../trainer-control/train-job";
import { dispatchToTrainer, trainerMode } from "../trainer-control/trainer-client";

/** The trainer, when this deployment has one (none in the test pool: the work runs in the Worker). */
const trainerOf = (env: Env) => (trainerMode(env) === "inline" ? undefined : (a: { job_id: string; attempt: number }) => dispatchToTrainer(env, a));

/** Job type → its work. Types without a handler here fail with a clear message. */
export const jobHandlers: Partial<Record<JobType, JobHandler>> = {
  dataset_ingest: (deps, job, control) =>
    runIngestJob({ db: createDb(deps.env.DB), bucket: deps.bucket, handToTrainer: trainerOf(deps.env) }, job, control),
  train: (deps, job, control) => runTrainJob(deps, job, control),
  infer_batch: (deps, job, control) =>
    runInferBatchJob({ db: createDb(deps.env.DB), bucket: deps.bucket, handToTrainer: trainerOf(deps.env) }, job, control),
  infer_explain: (deps, job, control) => runExplainJob({ db: createDb(deps.env.DB), bucket: deps.bucket }, job, control),
};
