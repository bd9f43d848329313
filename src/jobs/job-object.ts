import type { JobDO } from "../durable/job";

/**
 * The job's Durable Object as seen by callers: its RPC methods with their own signatures. (The
 * generic namespace handle wraps every result in RPC types that TypeScript cannot check on
 * records this wide.)
 */
export type JobObject = Pick<JobDO, "create" | "get" | "markUploaded" | "begin" | "report" | "succeed" | "fail" | "requeue" | "cancel">;

export function jobObject(ns: DurableObjectNamespace<JobDO>, jobId: string): JobObject {
  return ns.get(ns.idFromName(jobId)) as unknown as JobObject;
}
