import type { JobDeps } from "../jobs/service";
import type { UploadTarget } from "./upload-target";

/** What the dataset services need; plain values, never the request context. */
export interface DatasetDeps extends JobDeps {
  bucket: R2Bucket;
  signingSecret: string;
  /** Where signed uploads are PUT (./upload-target). */
  uploadTarget: UploadTarget;
  /** A trainer ingests uploads larger than the Worker can hold (false: they are refused). */
  trainerIngests: boolean;
}
