/**
 * A part of a batch inference cut into row ranges (./batch-parts), run by this trainer process
 * for the job's coordinator (in this process or another): the job's frame (the coordinator's,
 * shared in memory, or read once and kept for the job's next part here), the range through the
 * model version with a report after every chunk (the job's object answers `stop` once the part no
 * longer runs: the job canceled, or the part sent to another instance), its result pages stored,
 * and its csv rows and table handed back for the coordinator to put together.
 */
import { RESULT_PAGE_ROWS } from "../core/limits";
import { encodePartResult, partResult } from "../inference/batch-parts";
import { inferRows } from "../inference/batch-run";
import { storePages } from "../inference/results";
import { loadArtifact } from "../inference/run-model";
import { JobCanceledError } from "../jobs/errors";
import type { Frame } from "../ml/frame";
import type { ControlClient } from "./control-client";
import { JobInputCache } from "./job-input-cache";
import { log, logWarning } from "./log";
import { trainerModelRuntime } from "./trainer-runtime";
import type { BatchPartSpec, TrialAssignment } from "./wire";

const frames = new JobInputCache<Frame>();

/** The coordinator's frame, readable by the parts run in this process until `unshareFrame`. */
export function shareFrame(jobId: string, attempt: number, frame: Frame): void {
  frames.share(jobId, attempt, frame);
}

export function unshareFrame(jobId: string, attempt: number): void {
  frames.unshare(jobId, attempt);
}

const frameFor = (client: ControlClient): Promise<Frame> => frames.get(client.jobId, client.attempt, () => client.io().loadFrame());

export async function runBatchPartInTrainer(client: ControlClient, a: TrialAssignment, spec: BatchPartSpec): Promise<void> {
  const fields = { job_id: a.job_id, attempt: a.attempt, trial: a.trial, part: a.trial };
  const started = performance.now();
  const seconds = (since: number) => Number(((performance.now() - since) / 1000).toFixed(2));
  const range = { start: spec.start, end: spec.end };
  /** Where the part's time went, for its log line. */
  const phases = { read_s: 0, infer_s: 0, pages_s: 0, outcome_s: 0 };
  try {
    const frame = await frameFor(client);
    phases.read_s = seconds(started);
    const runtime = trainerModelRuntime(client);
    try {
      const version = { ...spec.model_version, artifactKey: null };
      const inferring = performance.now();
      const artifact = await loadArtifact(runtime, version);
      const rows = await inferRows(
        runtime,
        version,
        artifact,
        frame,
        range,
        async (done) => {
          if (await client.trialBeat(a.trial, a.run, done)) throw new JobCanceledError();
        },
        { groupAlikeRows: true },
      );
      phases.infer_s = seconds(inferring);
      const paging = performance.now();
      await storePages(client.resultSink(), rows.table, range.start / RESULT_PAGE_ROWS);
      phases.pages_s = seconds(paging);
      const handing = performance.now();
      await client.writeTrialOutcome(a.trial, a.run, encodePartResult(partResult(rows, range)));
      phases.outcome_s = seconds(handing);
    } finally {
      await runtime.release();
    }
    log(`job ${a.job_id} part ${a.trial}: rows ${range.start}–${range.end} in ${seconds(started)} s`, { ...fields, ...phases });
  } catch (e) {
    if (e instanceof JobCanceledError) {
      log(`job ${a.job_id} part ${a.trial}: stopped (the job no longer needs it)`, fields);
      return;
    }
    const message = e instanceof Error ? e.message : String(e);
    logWarning(`job ${a.job_id} part ${a.trial}: failed: ${message}`, fields);
    await client.failTrial(a.trial, a.run, message).catch(() => {});
  }
}
