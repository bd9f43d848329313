import type { Db } from "../db/client";
import { setVersionStatus, versionById } from "../db/dataset-versions";
import { modelVersionById, setModelVersionStatus } from "../db/model-versions";
import { isModelVersionStatus, type VersionStatus } from "../db/version-statuses";
import type { JobRecord, JobStatus } from "./types";

/**
 * A job's status decides the status of the resource it produces (a dataset version for ingest,
 * a model version for training). Kept here, in one place, and applied by the job's Durable
 * Object after every transition, so the two can never disagree for long. Typed by both lists: a
 * job status or a version status added there does not compile until it is mapped here.
 */
const RESOURCE_STATUS: Record<JobStatus, VersionStatus> = {
  initializing: "queued",
  pending: "queued",
  waiting_for_upload: "waiting_for_upload",
  queued: "queued",
  running: "processing",
  succeeded: "ready",
  failed: "failed",
  canceled: "canceled",
  rejected: "failed",
};

export async function syncResourceStatus(db: Db, job: JobRecord): Promise<void> {
  const status = RESOURCE_STATUS[job.status];
  const errorMessage = job.status === "failed" || job.status === "rejected" ? job.errorMessage : null;
  if (job.type === "dataset_ingest" && job.datasetVersionId) await setVersionStatus(db, job.datasetVersionId, status, errorMessage);
  // A train job never waits for an upload (it is created queued), so its version's status is
  // always one a model version can have; the check only tells the compiler so.
  else if (job.type === "train" && job.modelVersionId && isModelVersionStatus(status))
    await setModelVersionStatus(db, job.modelVersionId, status, errorMessage);
}

/**
 * The status of the resource a job produces (null when it has none or it is gone). A retry is
 * refused once that resource moved on (another retry is running or succeeded): two runs on one
 * version would race for it.
 */
export async function producedResourceStatus(db: Db, job: JobRecord): Promise<VersionStatus | null> {
  if (job.type === "dataset_ingest" && job.datasetVersionId) return (await versionById(db, job.datasetVersionId))?.status ?? null;
  if (job.type === "train" && job.modelVersionId) return (await modelVersionById(db, job.modelVersionId))?.status ?? null;
  return null;
}
