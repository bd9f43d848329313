import { runTraining } from "../container/run-training";
import { createDb } from "../db/client";
import type { JobRecord } from "../jobs/types";
import type { JobControl, JobOutcome, WorkDeps } from "../jobs/work";
import { completeTraining } from "./finalize";
import { trainingTarget } from "./target";
import { dispatchToTrainer, trainerMode } from "./trainer-client";
import { workerTrainingIO } from "./worker-io";

/**
 * The `train` job. With a trainer (the container in production, a local process under
 * `npm start`) the job is handed over and the trainer reports back through the internal control
 * routes; without one (the test pool) it runs here, in the Worker, with the same runner.
 */
export async function runTrainJob(deps: WorkDeps, job: JobRecord, control: JobControl): Promise<JobOutcome> {
  const db = createDb(deps.env.DB);
  const target = await trainingTarget(db, job);
  if (trainerMode(deps.env) !== "inline") {
    await dispatchToTrainer(deps.env, { job_id: job.id, attempt: control.attempt });
    return { settled: true };
  }
  const output = await runTraining(target.task, workerTrainingIO(deps.bucket, target, control));
  await completeTraining({ db, bucket: deps.bucket }, job, target, { ...output }, control.succeed);
  return { settled: true };
}
