/**
 * A trainer told to stop (SIGTERM: the platform sends it on rollouts and scale-in, and SIGKILL
 * 15 minutes later) takes no new work, lets its running jobs finish within a grace period, hands
 * back the ones still running (the Worker queues them again at once, on another instance, and
 * does not count the attempt as failed), and exits. Without this, a stopped trainer's jobs would
 * wait for the heartbeat timeout (120 s) before anything noticed.
 */
import type { Server } from "node:http";
import { TRAINER_SHUTDOWN_GRACE_S } from "../core/limits";
import type { ControlClient } from "./control-client";
import { log, logWarning } from "./log";

/** A job the trainer is working on, or a trial of a search (or a part of a batch) it runs for a job. */
export interface RunningJob {
  client: ControlClient;
  /** Set for a trial (its number and send): handed back on its own (sent again at once), the job's attempt goes on elsewhere. */
  trial?: { trial: number; run: number };
  /** Settles when the run ends, however it ends. */
  done: Promise<void>;
}

const HAND_BACK_REASON = "The trainer was stopped (a rollout or a scale-in) before the job finished";

/** The grace period: TRAINER_SHUTDOWN_GRACE_S from the environment, else the limit's default. */
export function shutdownGraceMs(env: NodeJS.ProcessEnv = process.env): number {
  const s = Number(env.TRAINER_SHUTDOWN_GRACE_S);
  return (env.TRAINER_SHUTDOWN_GRACE_S !== undefined && Number.isFinite(s) && s >= 0 ? s : TRAINER_SHUTDOWN_GRACE_S) * 1000;
}

/**
 * Stops taking work (the listening socket is closed; POST /jobs on a kept-alive connection gets a
 * 503, the server checks `draining`), waits up to `graceMs` for `running()` to finish, and hands
 * back what is still running. Resolves when the trainer may exit.
 */
export async function drain(server: Server, running: () => RunningJob[], graceMs: number): Promise<void> {
  server.close();
  server.closeIdleConnections();
  const started = Date.now();
  const atStart = running();
  log(`stopping: ${atStart.length} running job(s), ${graceMs / 1000} s to finish`, { status: "draining" });
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<void>((r) => {
    timer = setTimeout(r, graceMs);
  });
  await Promise.race([Promise.allSettled(atStart.map((j) => j.done)), graceOver]);
  clearTimeout(timer);
  const left = running();
  await Promise.all(
    left.map(async ({ client, trial }) => {
      const fields = { job_id: client.jobId, attempt: client.attempt, ...(trial === undefined ? {} : { trial: trial.trial }) };
      const what = trial === undefined ? `job ${client.jobId} attempt ${client.attempt}` : `job ${client.jobId} trial ${trial.trial}`;
      try {
        const taken = trial === undefined ? await client.handBack(HAND_BACK_REASON) : await client.handBackTrial(trial.trial, trial.run);
        log(`${what}: handed back${taken ? "" : " (it had already moved on)"}`, fields);
      } catch (e) {
        // The heartbeat timeout (the job's, or the trial's) sends it again instead.
        logWarning(`${what}: could not hand it back: ${e instanceof Error ? e.message : e}`, fields);
      }
    }),
  );
  log(`stopped: ${atStart.length - left.length} job(s) finished, ${left.length} handed back`, {
    duration_ms: Date.now() - started,
    status: "stopped",
  });
}
