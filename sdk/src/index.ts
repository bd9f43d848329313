export {
  type ClientOptions,
  contentTypeOf,
  DIRECT_UPLOAD_MAX_BYTES,
  type Schemas,
  TabularClient,
  type TrainRequest,
  type Uploaded,
  type UploadOptions,
  type WaitOptions,
} from "./client.js";
export { ApiError, describeDetail, type Job, JobFailedError } from "./errors.js";
export type { RetryOptions } from "./retry.js";
export type { components, paths } from "./schema.js";
