import type { JobDO } from "../durable/job";

/**
 * The job object's RPC methods with their own signatures. (The generic stub type wraps every
 * result in RPC types that TypeScript cannot check on records this wide.)
 */
export type JobStub = Pick<JobDO, "create" | "get" | "markUploaded" | "begin" | "report" | "succeed" | "fail" | "requeue" | "cancel">;

export function jobStub(ns: DurableObjectNamespace<JobDO>, jobId: string): JobStub {
  return ns.get(ns.idFromName(jobId)) as unknown as JobStub;
}
