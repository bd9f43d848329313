import { and, eq, ne } from "drizzle-orm";
import type { Db } from "../db/client";
import { nowIso } from "../db/client";
import { datasetVersions, modelVersions } from "../db/schema";
import type { JobRecord, JobStatus } from "./types";

/**
 * A job's status decides the status of the resource it produces (a dataset version for ingest,
 * a model version for training). Kept here, in one place, and applied by the job's Durable
 * Object after every transition, so the two can never disagree for long.
 */
const RESOURCE_STATUS: Record<JobStatus, string> = {
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
  const set = { status, errorMessage, updatedAt: nowIso() };
  if (job.type === "dataset_ingest" && job.datasetVersionId) {
    // A version that is already ready stays ready: a later ingest job on it (there is none today)
    // must not make good data look broken.
    await db
      .update(datasetVersions)
      .set(set)
      .where(and(eq(datasetVersions.id, job.datasetVersionId), ne(datasetVersions.status, "ready")));
  } else if (job.type === "train" && job.modelVersionId) {
    await db
      .update(modelVersions)
      .set(set)
      .where(and(eq(modelVersions.id, job.modelVersionId), ne(modelVersions.status, "ready")));
  }
}

/**
 * The status of the resource a job produces (null when it has none or it is gone). A retry is
 * refused once that resource moved on (another retry is running or succeeded): two runs on one
 * version would race for it.
 */
export async function producedResourceStatus(db: Db, job: JobRecord): Promise<string | null> {
  if (job.type === "dataset_ingest" && job.datasetVersionId) {
    const [v] = await db.select({ status: datasetVersions.status }).from(datasetVersions).where(eq(datasetVersions.id, job.datasetVersionId)).limit(1);
    return v?.status ?? null;
  }
  if (job.type === "train" && job.modelVersionId) {
    const [v] = await db.select({ status: modelVersions.status }).from(modelVersions).where(eq(modelVersions.id, job.modelVersionId)).limit(1);
    return v?.status ?? null;
  }
  return null;
}
