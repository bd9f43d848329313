import { JobCanceledError } from "../jobs/errors";
import type { JobObject } from "../jobs/job-object";
import type { JsonObject, ProgressReport } from "../jobs/types";

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
