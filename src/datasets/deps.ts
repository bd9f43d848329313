import type { Db } from "../db/client";
import type { JobDO } from "../durable/job";
import type { JobDeps } from "../jobs/service";

/** What the dataset services need; plain values, never the request context. */
export interface DatasetDeps extends JobDeps {
  db: Db;
  bucket: R2Bucket;
  jobs: DurableObjectNamespace<JobDO>;
  queue: Queue;
  signingSecret: string;
}

/** Direct uploads (multipart) and synchronous inference files. */
export const DIRECT_UPLOAD_MAX_BYTES = 30 * 1024 * 1024;
/** Multipart bodies carry some overhead beyond the file itself (checked on Content-Length). */
export const MULTIPART_SLACK_BYTES = 1024 * 1024;
/**
 * Signed uploads go through the Worker's own PUT route, so they are bounded by the Worker
 * request-size limit (100 MB on the smallest plan).
 */
export const SIGNED_UPLOAD_MAX_BYTES = 100 * 1024 * 1024;
