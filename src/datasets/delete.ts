import { and, eq, inArray, notInArray } from "drizzle-orm";
import type { Principal } from "../api/context";
import { notFound } from "../api/errors";
import { nowIso } from "../db/client";
import { datasetFiles, datasets, datasetVersions, jobs } from "../db/schema";
import { jobObject } from "../jobs/job-object";
import { TERMINAL_STATUSES } from "../jobs/types";
import { datasetPrefix, deletePrefix } from "../storage/keys";
import type { DatasetDeps } from "./deps";
import { presentVersion } from "./presenter";
import { findDataset } from "./records";

/**
 * Permanently remove a dataset, its versions and their R2 objects. Unfinished ingest and training
 * jobs on it are canceled first, so none writes into the dataset (or trains on it) after it is gone. Job records stay (with the
 * dataset name they recorded); models keep their own artifacts.
 */
export async function deleteDataset(deps: DatasetDeps, principal: Principal, id: string): Promise<void> {
  const d = await findDataset(deps.db, principal, id);
  const open = await deps.db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.datasetId, d.id), inArray(jobs.type, ["dataset_ingest", "train"]), notInArray(jobs.status, TERMINAL_STATUSES)));
  for (const j of open) await jobObject(deps.jobs, j.id).cancel();
  await deletePrefix(deps.bucket, datasetPrefix(principal.orgId, d.id));
  const versionIds = deps.db.select({ id: datasetVersions.id }).from(datasetVersions).where(eq(datasetVersions.datasetId, d.id));
  await deps.db.batch([
    deps.db.delete(datasetFiles).where(inArray(datasetFiles.datasetVersionId, versionIds)),
    deps.db.delete(datasetVersions).where(eq(datasetVersions.datasetId, d.id)),
    deps.db.delete(datasets).where(eq(datasets.id, d.id)),
  ]);
}

/** Archive (soft-delete) one version: it stays listed, flagged, and is no longer current. */
export async function archiveVersion(deps: DatasetDeps, principal: Principal, datasetId: string, versionId: string) {
  const d = await findDataset(deps.db, principal, datasetId);
  const [v] = await deps.db
    .update(datasetVersions)
    .set({ archived: true, updatedAt: nowIso() })
    .where(and(eq(datasetVersions.id, versionId), eq(datasetVersions.datasetId, d.id)))
    .returning();
  if (!v) throw notFound();
  return presentVersion(v);
}
