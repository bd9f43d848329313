export {
  type ClientOptions,
  contentTypeOf,
  type Schemas,
  TabularClient,
  type TrainRequest,
  type Uploaded,
  type UploadOptions,
  type WaitOptions,
} from "./client.js";
export { ApiError, ConnectionFailedError, describeDetail, type Job, JobFailedError } from "./errors.js";
export { DIRECT_UPLOAD_MAX_BYTES } from "./limits.js";
export type { RetryOptions } from "./retry.js";
export type { components, paths } from "./schema.js";
