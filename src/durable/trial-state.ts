/**
 * The state of one trial of a job's model search (or one part of a batch inference cut into row
 * ranges: the same bookkeeping for another piece of a job's work sent to an instance), as the job's object keeps it (one storage key
 * per trial, apart from the job's own state), and the watchdog's rule for it: a pure function of
 * the state and the time, like the job's own deadlines (./job-state).
 */
import { TRIAL_DISPATCH_TIMEOUT_S, TRIAL_HEARTBEAT_TIMEOUT_S, TRIAL_MAX_SENDS } from "../core/limits";
import type { TrialView } from "../jobs/job-object";
import type { JsonObject } from "../jobs/types";

type TrialStatus = TrialView["status"];

export interface TrialState {
  trial: number;
  /** The trial's parameters and budget, as the search sent them (the trainer reads them). */
  spec: JsonObject;
  /** Which of the search's instances runs it: the same slot never runs two trials at once. */
  slot: number;
  status: TrialStatus;
  /** Times it was sent to the queue, counted against the trial (a hand-back is not). */
  sends: number;
  /**
   * The number of its current send, hand-backs included: the instance running it carries the one
   * it began, and a call from an earlier send (an instance that went silent, then woke up after
   * the trial was sent again) is refused, as a job's attempt token refuses a superseded worker.
   * Absent in a trial stored before it existed: its `sends` stand in.
   */
  run?: number;
  sentAtMs: number;
  /** The last sign of life of the instance running it. */
  beatAtMs: number | null;
  message: string | null;
  /** Units of its work done, as its instance last reported them (a batch part's rows); absent until reported. */
  done?: number;
}

/** The storage key of a trial: under the attempt, so a restarted job's search starts clean. */
export const trialKey = (attempt: number, trial: number) => `${trialPrefix(attempt)}${String(trial).padStart(6, "0")}`;
export const trialPrefix = (attempt: number) => `trial:${attempt}:`;

/** The trial's current send (see TrialState.run). */
export const currentRun = (t: TrialState): number => t.run ?? t.sends;

export type TrialAction = { action: "wait" } | { action: "resend" } | { action: "fail"; message: string };

/** What the watchdog does with a trial now: nothing, send it again (its instance is gone), or fail it alone. */
export function onTrialDeadline(t: TrialState, nowMs: number): TrialAction {
  const silentSince = t.status === "queued" ? t.sentAtMs : t.status === "running" ? (t.beatAtMs ?? t.sentAtMs) : null;
  if (silentSince === null) return { action: "wait" };
  const timeoutS = t.status === "queued" ? TRIAL_DISPATCH_TIMEOUT_S : TRIAL_HEARTBEAT_TIMEOUT_S;
  if (nowMs - silentSince < timeoutS * 1000) return { action: "wait" };
  if (t.sends < TRIAL_MAX_SENDS) return { action: "resend" };
  const what =
    t.status === "queued" ? "no trainer instance took it" : "the trainer instance running it stopped answering (out of memory, or it crashed)";
  return { action: "fail", message: `Trial ${t.trial} was sent ${t.sends} times and ${what} each time.` };
}
