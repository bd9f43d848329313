/**
 * How a job's attempts run, in one place for the queue consumer, the trainer's control service and
 * the job's Durable Object: how many attempts, the back-off between them, what a failure leads
 * to, and what the watchdog does with a job that went quiet.
 */
import type { JobStatus } from "./types";

/**
 * Deliveries that may start a job's work (and re-sends of a message that was lost).
 * @internal exported for its unit test (test/core/attempts.test.ts)
 */
export const MAX_ATTEMPTS = 3;

/**
 * Back-off between attempts after a transient error: 5 s, 10 s, 20 s …
 * @internal exported for its unit test (test/core/attempts.test.ts)
 */
export const retryDelaySeconds = (attempt: number) => 5 * 2 ** Math.max(0, attempt - 1);

/** Why an attempt did not finish: `permanent` when retrying cannot help (bad input, bad data). */
export interface Failure {
  message: string;
  permanent: boolean;
}

type Settlement = { action: "fail"; message: string } | { action: "retry"; reason: string; delaySeconds: number };

/**
 * A failed attempt ends the job (permanent, or the last attempt) or queues it again after a back-off;
 * `attempt` counts the attempts that failed or are failing (the job's object counts them: ../durable/job).
 */
export function settleFailure(attempt: number, f: Failure): Settlement {
  if (f.permanent) return { action: "fail", message: f.message };
  if (attempt >= MAX_ATTEMPTS) return { action: "fail", message: `The job failed after ${attempt} attempts: ${f.message}` };
  return { action: "retry", reason: `Attempt ${attempt} failed (${f.message}); retrying.`, delaySeconds: retryDelaySeconds(attempt) };
}

/** How the job's object settled a failed attempt: whether it took it, and the back-off before the next one (null: none, the job failed). */
export interface SettledFailure {
  ok: boolean;
  retryInSeconds: number | null;
}

/**
 * Record a failed attempt on the job's object, which settles it (./settleFailure, on the attempts
 * it counts: hand-backs are not failures): failed, or back to queued and then delivered again
 * after the back-off (`redeliver`: a queue retry, or a new message). False when the object refused
 * (the job was canceled or taken over meanwhile): nothing to redeliver then.
 */
export async function recordFailure(
  jobObj: { failAttempt(attempt: number, f: Failure): Promise<SettledFailure> },
  attempt: number,
  f: Failure,
  redeliver: (delaySeconds: number) => void | Promise<void>,
): Promise<boolean> {
  const { ok, retryInSeconds } = await jobObj.failAttempt(attempt, f);
  if (ok && retryInSeconds !== null) await redeliver(retryInSeconds);
  return ok;
}

/**
 * A trainer that is stopping (SIGTERM: a rollout, a scale-in) hands its unfinished attempt back:
 * the job is queued again at once, and the attempt is not counted as a failure. The message waits
 * this long, so that the instance that handed it back has exited before the job's container is
 * asked for again (one container per job, named by it).
 */
export const HAND_BACK_REDELIVERY_DELAY_S = 2;

export type WatchdogAction = { action: "fail"; message: string } | { action: "redispatch"; note: string | null } | { action: "none" };

/**
 * What the watchdog does when a job's deadline passed: an upload never completed fails; a queued
 * job nobody picked up is sent again; a running job whose worker went silent is restarted; both
 * until the attempts are used up.
 */
export function onWatchdogDeadline(status: JobStatus, counts: { dispatches: number; attempts: number }, silentSeconds: number): WatchdogAction {
  switch (status) {
    case "waiting_for_upload":
      return { action: "fail", message: "The upload was not completed before its signed URL expired. Prepare a new upload." };
    case "queued":
      if (counts.dispatches >= MAX_ATTEMPTS) {
        return { action: "fail", message: `No worker picked up the job after ${counts.dispatches} dispatches. Retry the job.` };
      }
      return { action: "redispatch", note: null };
    case "running":
      if (counts.attempts >= MAX_ATTEMPTS) {
        return { action: "fail", message: `The worker stopped reporting for ${silentSeconds} s on attempt ${counts.attempts} of ${MAX_ATTEMPTS}.` };
      }
      return { action: "redispatch", note: `The worker stopped reporting for ${silentSeconds} s; restarting.` };
    default:
      return { action: "none" };
  }
}

/**
 * What happens to a running job whose worker is known to be gone (its trainer process restarted,
 * its container stopped): what the watchdog would do at the heartbeat deadline, now.
 */
export function onWorkerLost(attempts: number, reason: string): WatchdogAction {
  if (attempts >= MAX_ATTEMPTS) return { action: "fail", message: `${reason} on attempt ${attempts} of ${MAX_ATTEMPTS}.` };
  return { action: "redispatch", note: `${reason}; restarting.` };
}
