import { JobCanceledError } from "../jobs/errors";
import type { JobObject } from "../jobs/job-object";
import type { ProgressReport } from "../jobs/types";

/** What a job's work uses to talk to its Durable Object: progress, heartbeat, cancellation. */
export interface JobControl {
  /** Report progress; throws JobCanceledError when the job was canceled meanwhile. */
  report(r: ProgressReport & { rows_processed?: number }): Promise<void>;
}

/** `attempt` is the token `begin` handed out: once the job was restarted, this worker must stop. */
export function controlFor(jobObj: JobObject, attempt: number): JobControl {
  return {
    async report(r) {
      const { canceled, status } = await jobObj.report(r, attempt);
      if (canceled || status !== "running") throw new JobCanceledError();
    },
  };
}
