/**
 * The coordinator of a batch inference over a table too large for one instance (more than
 * BATCH_SPLIT_MIN_ROWS rows, with more than one trainer instance): the rows are cut into parts
 * (../inference/batch-parts), each sent through the job's object and the queue to the instance of
 * a free slot (./batch-part runs it), as a model search sends its trials (./trial-pool). Polling
 * the parts is also their watchdog (a part whose instance died is sent again); the job's progress
 * is the parts' rows done over the table's. When every part is done, their csv rows and tables
 * are put together in order into the job's result files: exactly what one instance stores.
 */
import { BATCH_SPLIT_MIN_ROWS } from "../core/limits";
import { cutIntoParts, decodePartResult, joinParts, type PartResult, storeJoinedFiles } from "../inference/batch-parts";
import type { StoredResults } from "../inference/results";
import type { Frame } from "../ml/frame";
import { shareFrame, unshareFrame } from "./batch-part";
import type { ControlClient } from "./control-client";
import { log } from "./log";
import type { BatchPartSpec, BatchTask } from "./wire";

/** How often the coordinator asks how its parts are doing. */
const POLL_MS = 500;

/** Whether the batch is cut into parts: a large table, and other instances to run them. */
export const runsInParts = (task: BatchTask, frame: Frame) => (task.instances ?? 1) > 1 && frame.rowCount > BATCH_SPLIT_MIN_ROWS;

export async function runBatchInParts(client: ControlClient, task: BatchTask, frame: Frame): Promise<StoredResults> {
  const io = client.io();
  const ranges = cutIntoParts(frame.rowCount, task.instances ?? 1);
  const results: PartResult[] = [];
  const freeSlots = Array.from({ length: Math.min(task.instances ?? 1, ranges.length) }, (_, i) => i);
  /** The parts sent and not yet done: their slot. */
  const pending = new Map<number, number>();
  let next = 0;
  let finished = 0;
  const started = performance.now();
  shareFrame(client.jobId, client.attempt, frame);
  try {
    await io.report({ progress: 10, rows_processed: 0 });
    while (finished < ranges.length) {
      while (freeSlots.length > 0 && next < ranges.length) {
        const slot = freeSlots.shift() as number;
        const spec: BatchPartSpec = { kind: "batch_part", ...ranges[next], model_version: task.model_version };
        pending.set(next, slot);
        await client.startTrial(next, slot, spec);
        next++;
      }
      const { trials } = await client.listTrials();
      let rowsDone = 0;
      for (const t of trials) {
        const range = ranges[t.trial];
        rowsDone += t.status === "done" ? range.end - range.start : (t.done ?? 0);
        const slot = pending.get(t.trial);
        if (slot === undefined || t.status === "queued" || t.status === "running") continue;
        if (t.status !== "done") throw new Error(`Rows ${range.start}–${range.end - 1} could not be inferred: ${t.message ?? t.status}`);
        results[t.trial] = decodePartResult(await client.readTrialOutcome(t.trial));
        pending.delete(t.trial);
        freeSlots.push(slot);
        finished++;
      }
      // a canceled job throws here (JobCanceledError); its parts stop at their next report
      await io.report({ progress: 10 + Math.round((70 * rowsDone) / frame.rowCount), rows_processed: rowsDone });
      if (finished < ranges.length) await new Promise((r) => setTimeout(r, POLL_MS));
    }
    const partsS = (performance.now() - started) / 1000;
    const joined = joinParts(results);
    await io.report({ progress: 85, rows_processed: frame.rowCount });
    const stored = await storeJoinedFiles(client.resultSink(), joined);
    const storeS = (performance.now() - started) / 1000 - partsS;
    log(`job ${client.jobId}: ${ranges.length} parts in ${partsS.toFixed(1)} s, put together and stored in ${storeS.toFixed(1)} s`, {
      job_id: client.jobId,
      attempt: client.attempt,
      parts: ranges.length,
      parts_s: Number(partsS.toFixed(2)),
      join_store_s: Number(storeS.toFixed(2)),
    });
    return stored;
  } finally {
    unshareFrame(client.jobId, client.attempt);
    // the parts' outcomes are deleted; parts still running (a failure) are canceled
    await client.closeSearch().catch(() => {});
  }
}
