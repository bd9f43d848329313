import type { JobDeps } from "../jobs/service";

/** What the dataset services need; plain values, never the request context. */
export interface DatasetDeps extends JobDeps {
  bucket: R2Bucket;
  signingSecret: string;
}
