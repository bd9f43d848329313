import { and, desc, eq, sql } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { InvalidInput, NotFound } from "../core/errors";
import { type Db, nowIso } from "../db/client";
import { deleteVersionStatements, findVersionOfOrg, insertVersion, type VersionRow } from "../db/dataset-versions";
import { datasets } from "../db/schema";
import { isUuid } from "../jobs/ids";
import { deletePrefix, versionPrefix } from "../storage/keys";

export type DatasetRow = typeof datasets.$inferSelect;
export type { VersionRow };

export async function findDataset(db: Db, principal: Principal, id: string): Promise<DatasetRow> {
  if (!isUuid(id)) throw new NotFound();
  const rows = await db
    .select()
    .from(datasets)
    .where(and(eq(datasets.id, id), eq(datasets.orgId, principal.orgId)))
    .limit(1);
  if (!rows[0]) throw new NotFound();
  return rows[0];
}

export async function findVersion(db: Db, principal: Principal, versionId: string): Promise<VersionRow> {
  const v = isUuid(versionId) ? await findVersionOfOrg(db, principal.orgId, versionId) : undefined;
  if (!v) throw new NotFound();
  return v;
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
): Promise<{ dataset: DatasetRow; version: VersionRow; createdDataset: boolean }> {
  const now = nowIso();
  let datasetId = req.datasetId;
  if (datasetId) {
    await findDataset(db, principal, datasetId);
  } else {
    if (!req.name) throw InvalidInput.field(["dataset_name"], "Field required", null, "missing");
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
  if (!dataset) throw new NotFound(); // deleted between the look-up and the increment
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
  await insertVersion(db, row);
  return { dataset, version: row, createdDataset: !req.datasetId };
}

/**
 * Undo a version whose upload could not be completed (storage or job creation failed): its
 * file rows, stored bytes, the version, and the dataset when this request created it.
 */
export async function discardVersion(db: Db, bucket: R2Bucket, created: { dataset: DatasetRow; version: VersionRow; createdDataset: boolean }) {
  const { dataset, version } = created;
  await deletePrefix(bucket, versionPrefix(version.orgId, dataset.id, version.id));
  await db.batch([
    ...deleteVersionStatements(db, version.id),
    ...(created.createdDataset ? [db.delete(datasets).where(eq(datasets.id, dataset.id))] : []),
  ]);
}

/** Run the steps after a version was created; if one fails, discard the version and rethrow. */
export async function orDiscard<T>(db: Db, bucket: R2Bucket, created: Parameters<typeof discardVersion>[2], steps: () => Promise<T>): Promise<T> {
  try {
    return await steps();
  } catch (e) {
    await discardVersion(db, bucket, created).catch((cleanup) => console.error("discarding a failed upload failed", cleanup));
    throw e;
  }
}
