/**
 * A batch inference job in the trainer: the dataset version's rows from the control routes, the
 * shared runner (../inference/batch-run) with the trainer's runtime, the result files back
 * through the control routes; a table too large for one instance is cut into parts run by
 * several (./batch-parts). Returns the job's output (what the queue consumer's run returns).
 */
import { runBatchInference } from "../inference/batch-run";
import { runBatchInParts, runsInParts } from "./batch-parts";
import type { ControlClient } from "./control-client";
import { log } from "./log";
import { trainerModelRuntime } from "./trainer-runtime";
import type { BatchTask } from "./wire";

export async function runBatchInTrainer(client: ControlClient, task: BatchTask) {
  const started = Date.now();
  const io = client.io();
  const frame = await io.loadFrame();
  const read = Date.now();
  const runtime = trainerModelRuntime(client);
  try {
    const version = { id: task.model_version.id, version: task.model_version.version, artifactKey: null };
    if (runsInParts(task, frame)) {
      const stored = await runBatchInParts(client, task, frame);
      return { ...stored, output_type: task.output_type, model_version_id: version.id, seconds: (Date.now() - started) / 1000 };
    }
    // the last chunk's report ends the inference; storing the results follows
    let inferred = read;
    const stored = await runBatchInference(
      {
        runtime,
        sink: client.resultSink(),
        report: (progress, rows) => {
          inferred = Date.now();
          return io.report({ progress, rows_processed: rows });
        },
        groupAlikeRows: true,
      },
      version,
      frame,
    );
    const s = (ms: number) => Number((ms / 1000).toFixed(2));
    log(`job ${client.jobId}: ${frame.rowCount} rows inferred and stored in ${s(Date.now() - started)} s`, {
      job_id: client.jobId,
      attempt: client.attempt,
      read_s: s(read - started),
      infer_s: s(inferred - read),
      store_s: s(Date.now() - inferred),
    });
    return { ...stored, output_type: task.output_type, model_version_id: version.id, seconds: (Date.now() - started) / 1000 };
  } finally {
    await runtime.release();
  }
}
