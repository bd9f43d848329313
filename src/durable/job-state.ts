import type { JobRecord } from "../jobs/types";

/** How long a queued job may wait for a worker before its message is sent again. */
const QUEUE_PICKUP_TIMEOUT_MS = 10 * 60_000;
/** Progress is mirrored to D1 at most this often; transitions are mirrored at once. */
export const MIRROR_INTERVAL_MS = 1_000;
/** A failed mirror to D1 is tried again after this long (by the alarm). */
const MIRROR_RETRY_MS = 5_000;

/** What the job object keeps beside the job itself. */
export interface Internal {
  /** Deliveries that started the work; also the token a worker must show (stale ones are refused). */
  attempts: number;
  /**
   * Attempts a stopping trainer handed back unfinished (src/container/shutdown.ts): they got a new
   * token but are not failures, so the attempt policy counts `attempts - handedBack`. Absent in
   * the state of jobs stored before hand-backs existed.
   */
  handedBack?: number;
  /** Queue message being worked on, so that a redelivery of the same message can take over. */
  messageId: string | null;
  lastHeartbeatMs: number | null;
  queuedAtMs: number | null;
  dispatches: number;
  uploadExpiresAtMs: number | null;
  lastMirrorMs: number;
  rowsProcessed: number;
  /** Bumped on every save; the D1 copy only ever moves forward to a higher revision. */
  revision: number;
  /** The last transition has not reached D1 yet (D1 failed): the alarm retries it. */
  mirrorPending: boolean;
}

export interface Stored {
  job: JobRecord;
  internal: Internal;
}

export function newInternal(job: JobRecord, uploadExpiresAtMs: number | null): Internal {
  const queued = job.status === "queued";
  return {
    attempts: 0,
    messageId: null,
    lastHeartbeatMs: null,
    queuedAtMs: queued ? Date.now() : null,
    dispatches: queued ? 1 : 0,
    uploadExpiresAtMs,
    lastMirrorMs: 0,
    rowsProcessed: 0,
    revision: 0,
    mirrorPending: false,
  };
}

/** The attempts that count toward the attempt limit: every delivery that started the work, less hand-backs. */
export const countedAttempts = (i: Internal) => i.attempts - (i.handedBack ?? 0);

/** When the watchdog must look at the job again, from its state alone (null: never). */
export function watchdogDeadline(s: Stored, heartbeatTimeoutMs: number): number | null {
  const i = s.internal;
  switch (s.job.status) {
    case "waiting_for_upload":
      return i.uploadExpiresAtMs;
    case "queued":
      return (i.queuedAtMs ?? Date.now()) + QUEUE_PICKUP_TIMEOUT_MS;
    case "running":
      return (i.lastHeartbeatMs ?? Date.now()) + heartbeatTimeoutMs;
    default:
      return null;
  }
}

/** The one alarm of the object serves both the watchdog and the retry of a failed mirror. */
export function nextAlarm(s: Stored, heartbeatTimeoutMs: number): number | null {
  const deadline = watchdogDeadline(s, heartbeatTimeoutMs);
  const retry = s.internal.mirrorPending ? Date.now() + MIRROR_RETRY_MS : null;
  if (deadline === null) return retry;
  return retry === null ? deadline : Math.min(deadline, retry);
}
