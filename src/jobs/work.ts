/**
 * What a job's work is given and gives back, whoever runs it (the queue consumer today; a job type
 * adds its handler in queue/handlers.ts).
 */
import { JobCanceledError } from "./errors";
import type { JobObject } from "./job-object";
import type { JobRecord, JsonObject, ProgressReport } from "./types";

/** What a job's work uses to talk to its Durable Object: progress, heartbeat, cancellation. */
export interface JobControl {
  /** The token `begin` handed out for this attempt (a remote worker passes it back). */
  readonly attempt: number;
  /** Report progress; throws JobCanceledError when the job was canceled meanwhile. */
  report(r: ProgressReport & { rows_processed?: number }): Promise<void>;
  /** running → succeeded; false when the job was canceled or restarted meanwhile. */
  succeed(output: JsonObject, rowsProcessed: number): Promise<boolean>;
}

/** `attempt` is the token `begin` handed out: once the job was restarted, this worker must stop. */
export function controlFor(jobObj: JobObject, attempt: number): JobControl {
  return {
    attempt,
    async report(r) {
      const { canceled, status } = await jobObj.report(r, attempt);
      if (canceled || status !== "running") throw new JobCanceledError();
    },
    succeed: (output, rows) => jobObj.succeed(output, rows, attempt),
  };
}

/** What the work of a job gets: plain bindings, never a request context. */
export interface WorkDeps {
  env: Env;
  bucket: R2Bucket;
}

/**
 * The result of a job's work: its output, for the consumer to record; or `settled` when the work
 * recorded its end itself (training finalizes its model version first) or continues elsewhere
 * (handed to the trainer, which reports back through the internal control routes).
 */
export type JobOutcome = { output: JsonObject; rowsProcessed: number } | { settled: true };

export type JobHandler = (deps: WorkDeps, job: JobRecord, control: JobControl) => Promise<JobOutcome>;
