import type { Db } from "../db/client";
import { setVersionStatus, versionById } from "../db/dataset-versions";
import { modelVersionById, setModelVersionStatus } from "../db/model-versions";
import { isModelVersionStatus, type VersionStatus } from "../db/version-statuses";
import type { JobRecord, JobStatus, JobType } from "./types";

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

/** What a job produces, for the job types that produce one: a version whose status follows the job's. */
interface ProducedResource {
  /** Its name in messages. */
  name: string;
  /** Its status, or null when it is gone (or the job names none). */
  status(db: Db, job: JobRecord): Promise<VersionStatus | null>;
  setStatus(db: Db, job: JobRecord, status: VersionStatus, errorMessage: string | null): Promise<void>;
}

const PRODUCED: Partial<Record<JobType, ProducedResource>> = {
  dataset_ingest: {
    name: "dataset version",
    status: async (db, job) => (job.datasetVersionId ? ((await versionById(db, job.datasetVersionId))?.status ?? null) : null),
    async setStatus(db, job, status, errorMessage) {
      if (job.datasetVersionId) await setVersionStatus(db, job.datasetVersionId, status, errorMessage);
    },
  },
  train: {
    name: "model version",
    status: async (db, job) => (job.modelVersionId ? ((await modelVersionById(db, job.modelVersionId))?.status ?? null) : null),
    async setStatus(db, job, status, errorMessage) {
      // A train job never waits for an upload (it is created queued), so its version's status is
      // always one a model version can have; the check only tells the compiler so.
      if (job.modelVersionId && isModelVersionStatus(status)) await setModelVersionStatus(db, job.modelVersionId, status, errorMessage);
    },
  },
};

export async function syncResourceStatus(db: Db, job: JobRecord): Promise<void> {
  const errorMessage = job.status === "failed" || job.status === "rejected" ? job.errorMessage : null;
  await PRODUCED[job.type]?.setStatus(db, job, RESOURCE_STATUS[job.status], errorMessage);
}

/**
 * What a job produces and its status now (null when it produces nothing or it is gone). A retry
 * is refused once that resource moved on (another retry is running or succeeded): two runs on
 * one version would race for it.
 */
export async function producedResource(db: Db, job: JobRecord): Promise<{ name: string; status: VersionStatus } | null> {
  const resource = PRODUCED[job.type];
  const status = resource ? await resource.status(db, job) : null;
  return resource && status ? { name: resource.name, status } : null;
}
