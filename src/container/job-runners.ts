/**
 * The trainer's side of each job kind, one entry per kind of the wire (./wire): kind → its runner,
 * which works through the control client and returns the job's output and a line for the log.
 * The Worker's side of the same kinds is ../trainer-control/job-kinds.
 */
import { runBatchInTrainer } from "./batch-job";
import type { ControlClient } from "./control-client";
import { trainerThreadPool } from "./gbdt-threads";
import { runIngestInTrainer } from "./ingest-job";
import { log } from "./log";
import { runTraining } from "./run-training";
import { ControlTrialPool } from "./trial-pool";
import type { TaskOf, TrainerJobKind } from "./wire";

/** A job's outcome: its output (what `succeed` records) and what the trainer logs of it. */
export interface RunOutcome {
  output: Record<string, unknown>;
  summary: string;
}

export const TRAINER_RUNNERS: { [K in TrainerJobKind]: (client: ControlClient, task: TaskOf<K>) => Promise<RunOutcome> } = {
  async train(client, task) {
    // more than one instance: a model search runs its trials on them (./trial-pool)
    const instances = task.search_instances ?? 1;
    const io = { ...client.io(), trialPool: instances > 1 ? new ControlTrialPool(client, instances) : null };
    // each stage's start in the log: where a slow job's time went (the output has four sums only)
    const onStage = (stage: string) => log(`job ${client.jobId}: ${stage}`, { job_id: client.jobId, attempt: client.attempt, stage });
    const output = await runTraining(task, io, { parallel: trainerThreadPool(), onStage });
    return { output, summary: `succeeded in ${output.seconds.total} s (${output.representation} representation)` };
  },
  async infer_batch(client, task) {
    const output = await runBatchInTrainer(client, task);
    return { output, summary: `${output.rows} rows inferred in ${output.seconds} s` };
  },
  async dataset_ingest(client, task) {
    const output = await runIngestInTrainer(client, task);
    return { output, summary: `ingested ${output.row_count} rows in ${output.seconds} s (peak RSS ${output.peak_rss_mb} MB)` };
  },
};
