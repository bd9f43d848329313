import type { Failure, SettledFailure } from "./attempts";
import type { JobRecord, JobStatus, JsonObject, ProgressReport } from "./types";

/** `job` is set when the delivery may start the work (RPC results are plain objects, no unions). */
export interface BeginResult {
  job: JobRecord | null;
  /** The attempt token: later calls of this worker pass it, and are refused once it is stale. */
  attempt: number;
  status: JobStatus | null;
}

/** A trial of the job's model search as its coordinator sees it (the job's object keeps them: durable/trials.ts). */
export interface TrialView {
  trial: number;
  status: "queued" | "running" | "done" | "failed" | "canceled";
  message: string | null;
  /** Units of its work done, when its instance reports them (a batch part's rows). */
  done?: number;
}

/**
 * A job's Durable Object as its callers see it: the single writer of the job's state
 * (durable/job.ts implements it). `attempt`, where taken, is the token `begin` handed out; calls
 * of a superseded attempt are refused.
 */
export interface JobObject {
  /** Create the job; idempotent (a second call returns the job as it is). */
  create(job: JobRecord, opts?: { uploadExpiresAtMs?: number }): Promise<JobRecord>;
  get(): Promise<JobRecord | null>;
  /** waiting_for_upload → queued. */
  markUploaded(): Promise<{ ok: boolean; status: JobStatus | null }>;
  /** queued → running for a queue delivery (or a take-over by a redelivery of the same message). */
  begin(delivery: { messageId: string }): Promise<BeginResult>;
  /** Progress and heartbeat; answers whether the worker must stop. */
  report(r: ProgressReport & { rows_processed?: number }, attempt?: number): Promise<{ canceled: boolean; status: JobStatus | null }>;
  succeed(output: JsonObject, rowsProcessed?: number, attempt?: number): Promise<boolean>;
  fail(message: string, attempt?: number): Promise<boolean>;
  /** running → queued after a transient error. */
  requeue(reason: string, attempt?: number): Promise<boolean>;
  /** A failed attempt, settled by the attempt policy on the attempts the object counts: failed, or queued for a retry after a back-off. */
  failAttempt(attempt: number, f: Failure): Promise<SettledFailure>;
  /** running → queued and dispatched again at once: a stopping trainer hands its attempt back (not counted as a failure). */
  handBack(reason: string, attempt: number): Promise<boolean>;
  cancel(): Promise<{ ok: boolean; status: JobStatus | null }>;
  /** The running job's worker is gone: restarted now (or failed, on its last attempt); false when not running. */
  workerLost(reason: string): Promise<boolean>;
  // The trials of the job's model search, for the running attempt (durable/trials.ts); refused (false, null) once it no longer runs.
  // `run`: which send of the trial the caller handles (its queue message, its instance); an earlier send's calls are refused.
  startTrial(attempt: number, trial: number, slot: number, spec: JsonObject): Promise<boolean>;
  beginTrial(attempt: number, trial: number, run: number): Promise<{ spec: JsonObject | null; slot: number }>;
  trialUndispatched(attempt: number, trial: number, run: number): Promise<void>;
  trialBeat(attempt: number, trial: number, run: number, done?: number): Promise<boolean>;
  handBackTrial(attempt: number, trial: number, run: number): Promise<boolean>;
  settleTrial(attempt: number, trial: number, run: number, status: "done" | "failed", message: string | null): Promise<boolean>;
  listTrials(attempt: number): Promise<TrialView[] | null>;
  closeSearch(attempt: number): Promise<number>;
}

/** The namespace bound as JOB, as far as reaching one job's object goes. */
export interface JobNamespace {
  idFromName(name: string): DurableObjectId;
  get(id: DurableObjectId): unknown;
}

/** The job's object, from the namespace bound as JOB. */
export function jobObject(ns: JobNamespace, jobId: string): JobObject {
  // The generic handle wraps every result in RPC types that TypeScript cannot check on records
  // this wide: the interface above is the contract.
  return ns.get(ns.idFromName(jobId)) as unknown as JobObject;
}
