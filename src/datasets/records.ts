import { and, desc, eq, sql } from "drizzle-orm";
import type { Principal } from "../api/context";
import { invalid, notFound } from "../api/errors";
import { nowIso, type Db } from "../db/client";
import { datasets, datasetVersions } from "../db/schema";
import { isUuid } from "../jobs/ids";

export type DatasetRow = typeof datasets.$inferSelect;
export type VersionRow = typeof datasetVersions.$inferSelect;

export async function findDataset(db: Db, principal: Principal, id: string): Promise<DatasetRow> {
  if (!isUuid(id)) throw notFound();
  const rows = await db
    .select()
    .from(datasets)
    .where(and(eq(datasets.id, id), eq(datasets.orgId, principal.orgId)))
    .limit(1);
  if (!rows[0]) throw notFound();
  return rows[0];
}

export async function findVersion(db: Db, principal: Principal, versionId: string): Promise<VersionRow> {
  if (!isUuid(versionId)) throw notFound();
  const rows = await db
    .select()
    .from(datasetVersions)
    .where(and(eq(datasetVersions.id, versionId), eq(datasetVersions.orgId, principal.orgId)))
    .limit(1);
  if (!rows[0]) throw notFound();
  return rows[0];
}

export async function findDatasetByName(db: Db, principal: Principal, name: string): Promise<DatasetRow | undefined> {
  const rows = await db
    .select()
    .from(datasets)
    .where(and(eq(datasets.orgId, principal.orgId), eq(datasets.name, name)))
    .orderBy(desc(datasets.createdAt))
    .limit(1);
  return rows[0];
}

/**
 * A new version of an existing dataset (when `datasetId` is given) or of a new dataset. The
 * version number comes from an atomic increment, so concurrent uploads never share a number.
 */
export async function createVersion(
  db: Db,
  principal: Principal,
  req: { datasetId?: string; name?: string; description?: string },
  version: Pick<VersionRow, "status" | "sourceFilename" | "contentType" | "format" | "sizeBytes">,
): Promise<{ dataset: DatasetRow; version: VersionRow }> {
  const now = nowIso();
  let datasetId = req.datasetId;
  if (datasetId) {
    await findDataset(db, principal, datasetId);
  } else {
    if (!req.name) throw invalid(["body", "dataset_name"], "Field required", null, "missing");
    datasetId = crypto.randomUUID();
    await db.insert(datasets).values({
      id: datasetId,
      orgId: principal.orgId,
      name: req.name,
      description: req.description ?? null,
      lastVersionNumber: 0,
      createdAt: now,
      updatedAt: now,
    });
  }
  const [dataset] = await db
    .update(datasets)
    .set({ lastVersionNumber: sql`${datasets.lastVersionNumber} + 1`, updatedAt: now })
    .where(eq(datasets.id, datasetId))
    .returning();
  const row: VersionRow = {
    id: crypto.randomUUID(),
    datasetId,
    orgId: principal.orgId,
    version: dataset.lastVersionNumber,
    archived: false,
    rowCount: null,
    columnCount: null,
    columnsJson: null,
    frameKey: null,
    idsGenerated: null,
    errorMessage: null,
    createdAt: now,
    updatedAt: now,
    ...version,
  };
  await db.insert(datasetVersions).values(row);
  return { dataset, version: row };
}
