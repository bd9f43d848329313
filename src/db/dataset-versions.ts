/**
 * Every query of `dataset_versions`, and the rules that pick a version:
 * - the **current** version of a dataset is its latest version that is not archived (what lists
 *   and the detail show);
 * - the version a model trains on, or a preview reads, when only the dataset is named, is the
 *   latest **ready** one that is not archived (a newer upload still ingesting does not get in the
 *   way of the data that is there).
 */
import { and, desc, eq, inArray, ne } from "drizzle-orm";
import { type Db, inChunks, nowIso } from "./client";
import { beforeVersion, type Page, type PageRequest, toVersionPage } from "./cursor";
import { datasetFiles, datasetVersions } from "./schema";
import type { VersionStatus } from "./version-statuses";

export type VersionRow = typeof datasetVersions.$inferSelect;
type FileRow = typeof datasetFiles.$inferSelect;

const notArchived = eq(datasetVersions.archived, false);

/** A version of one organization by id. */
export async function findVersionOfOrg(db: Db, orgId: string, versionId: string): Promise<VersionRow | undefined> {
  const [v] = await db
    .select()
    .from(datasetVersions)
    .where(and(eq(datasetVersions.id, versionId), eq(datasetVersions.orgId, orgId)))
    .limit(1);
  return v;
}

/** A version by id, whoever owns it (jobs hold ids checked when they were created). */
export async function versionById(db: Db, versionId: string): Promise<VersionRow | undefined> {
  const [v] = await db.select().from(datasetVersions).where(eq(datasetVersions.id, versionId)).limit(1);
  return v;
}

/** A version of a given dataset by id. */
export async function versionInDataset(db: Db, datasetId: string, versionId: string): Promise<VersionRow | undefined> {
  const [v] = await db
    .select()
    .from(datasetVersions)
    .where(and(eq(datasetVersions.datasetId, datasetId), eq(datasetVersions.id, versionId)))
    .limit(1);
  return v;
}

/** Every version of a dataset, newest first (archived ones too). */
export async function versionsOfDataset(db: Db, datasetId: string, page: PageRequest): Promise<Page<VersionRow>> {
  const rows = await db
    .select()
    .from(datasetVersions)
    .where(and(eq(datasetVersions.datasetId, datasetId), beforeVersion(datasetVersions.version, page.cursor)))
    .orderBy(desc(datasetVersions.version))
    .limit(page.limit + 1);
  return toVersionPage(rows, page.limit, (v) => v);
}

/** The current version of each dataset (see the rules above); datasets without one are absent. */
export async function currentVersions(db: Db, datasetIds: string[]): Promise<Map<string, VersionRow>> {
  const rows = await inChunks(datasetIds, (ids) =>
    db
      .select()
      .from(datasetVersions)
      .where(and(inArray(datasetVersions.datasetId, ids), notArchived))
      .orderBy(desc(datasetVersions.version)),
  );
  const out = new Map<string, VersionRow>();
  for (const r of rows) if (!out.has(r.datasetId)) out.set(r.datasetId, r);
  return out;
}

/**
 * The version to read when only the dataset is named: the latest ready one, else (so that the
 * caller can say why it cannot be used) the current one; undefined when there is no version.
 */
export async function latestReadyOrCurrent(db: Db, datasetId: string): Promise<VersionRow | undefined> {
  const rows = await db
    .select()
    .from(datasetVersions)
    .where(and(eq(datasetVersions.datasetId, datasetId), notArchived))
    .orderBy(desc(datasetVersions.version));
  return rows.find((v) => v.status === "ready") ?? rows[0];
}

/** Dataset id, number and archived flag of each version, for version references. */
export async function versionRefs(db: Db, versionIds: string[]): Promise<Map<string, { datasetId: string; version: number; archived: boolean }>> {
  const rows = await inChunks(versionIds, (ids) =>
    db
      .select({ id: datasetVersions.id, datasetId: datasetVersions.datasetId, version: datasetVersions.version, archived: datasetVersions.archived })
      .from(datasetVersions)
      .where(inArray(datasetVersions.id, ids)),
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/** A file of an upload with the status of its version (the signed PUT checks both). */
export async function fileWithVersionStatus(
  db: Db,
  orgId: string,
  fileId: string,
): Promise<{ file: FileRow; versionStatus: VersionStatus } | undefined> {
  const [row] = await db
    .select({ file: datasetFiles, versionStatus: datasetVersions.status })
    .from(datasetFiles)
    .innerJoin(datasetVersions, eq(datasetVersions.id, datasetFiles.datasetVersionId))
    .where(and(eq(datasetFiles.id, fileId), eq(datasetFiles.orgId, orgId)))
    .limit(1);
  return row;
}

export async function insertVersion(db: Db, row: VersionRow): Promise<void> {
  await db.insert(datasetVersions).values(row);
}

/**
 * The status a version takes from its ingest job. A version that is already ready stays ready:
 * a later job on it must not make good data look broken.
 */
export async function setVersionStatus(db: Db, versionId: string, status: VersionStatus, errorMessage: string | null): Promise<void> {
  await db
    .update(datasetVersions)
    .set({ status, errorMessage, updatedAt: nowIso() })
    .where(and(eq(datasetVersions.id, versionId), ne(datasetVersions.status, "ready")));
}

/** What ingestion learned about the version's table. */
export async function recordIngested(
  db: Db,
  versionId: string,
  t: Pick<VersionRow, "rowCount" | "columnCount" | "columnsJson" | "frameKey" | "idsGenerated">,
): Promise<void> {
  await db.update(datasetVersions).set(t).where(eq(datasetVersions.id, versionId));
}

/** Archive (soft-delete) a version of a dataset; undefined when the dataset has no such version. */
export async function archiveVersionRow(db: Db, datasetId: string, versionId: string): Promise<VersionRow | undefined> {
  const [v] = await db
    .update(datasetVersions)
    .set({ archived: true, updatedAt: nowIso() })
    .where(and(eq(datasetVersions.id, versionId), eq(datasetVersions.datasetId, datasetId)))
    .returning();
  return v;
}

/** Statements for a batch: a version with its file rows, or every version of a dataset with theirs. */
export function deleteVersionStatements(db: Db, versionId: string) {
  return [
    db.delete(datasetFiles).where(eq(datasetFiles.datasetVersionId, versionId)),
    db.delete(datasetVersions).where(eq(datasetVersions.id, versionId)),
  ] as const;
}

export function deleteDatasetVersionsStatements(db: Db, datasetId: string) {
  const versionIds = db.select({ id: datasetVersions.id }).from(datasetVersions).where(eq(datasetVersions.datasetId, datasetId));
  return [
    db.delete(datasetFiles).where(inArray(datasetFiles.datasetVersionId, versionIds)),
    db.delete(datasetVersions).where(eq(datasetVersions.datasetId, datasetId)),
  ] as const;
}
