import { and, eq, inArray, notInArray } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { NotFound } from "../core/errors";
import { archiveVersionRow, deleteDatasetVersionsStatements } from "../db/dataset-versions";
import { datasets, jobs } from "../db/schema";
import { jobObject } from "../jobs/job-object";
import { TERMINAL_STATUSES } from "../jobs/types";
import { datasetPrefix, deletePrefix } from "../storage/keys";
import type { DatasetDeps } from "./deps";
import { findDataset, type VersionRow } from "./records";

/**
 * Permanently remove a dataset, its versions and their R2 objects. Unfinished ingest and training
 * jobs on it are canceled first, so none writes into the dataset (or trains on it) after it is
 * gone. Job records stay (with the dataset name they recorded); models keep their own artifacts.
 */
export async function deleteDataset(deps: DatasetDeps, principal: Principal, id: string): Promise<void> {
  const d = await findDataset(deps.db, principal, id);
  const open = await deps.db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.datasetId, d.id), inArray(jobs.type, ["dataset_ingest", "train"]), notInArray(jobs.status, TERMINAL_STATUSES)));
  for (const j of open) await jobObject(deps.jobs, j.id).cancel();
  await deletePrefix(deps.bucket, datasetPrefix(principal.orgId, d.id));
  await deps.db.batch([...deleteDatasetVersionsStatements(deps.db, d.id), deps.db.delete(datasets).where(eq(datasets.id, d.id))]);
}

/** Archive (soft-delete) one version: it stays listed, flagged, and is no longer current. */
export async function archiveVersion(deps: DatasetDeps, principal: Principal, datasetId: string, versionId: string): Promise<VersionRow> {
  const d = await findDataset(deps.db, principal, datasetId);
  const v = await archiveVersionRow(deps.db, d.id, versionId);
  if (!v) throw new NotFound();
  return v;
}
