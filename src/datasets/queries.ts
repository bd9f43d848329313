import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import type { Db } from "../db/client";
import { afterCursor, type Page, type PageRequest, toPage } from "../db/cursor";
import { currentVersions, versionsOfDataset } from "../db/dataset-versions";
import { datasets } from "../db/schema";
import { type DatasetRow, findDataset, type VersionRow } from "./records";

/** A dataset with its current version (absent when every version is archived). */
export interface DatasetWithCurrent {
  dataset: DatasetRow;
  current: VersionRow | undefined;
}

export async function listDatasets(db: Db, principal: Principal, q: PageRequest & { search?: string }) {
  const where: (SQL | undefined)[] = [eq(datasets.orgId, principal.orgId)];
  if (q.search) {
    // Case-insensitive substring. instr, not LIKE: D1 refuses LIKE patterns over 50 bytes ("LIKE
    // or GLOB pattern too complex"), and instr has no wildcards to escape.
    where.push(sql`instr(lower(${datasets.name}), lower(${q.search})) > 0`);
  }
  where.push(afterCursor(datasets.createdAt, datasets.id, q.cursor));
  const rows = await db
    .select()
    .from(datasets)
    .where(and(...where))
    .orderBy(desc(datasets.createdAt), desc(datasets.id))
    .limit(q.limit + 1);
  const current = await currentVersions(
    db,
    rows.map((r) => r.id),
  );
  return toPage(rows, q.limit, (d): DatasetWithCurrent => ({ dataset: d, current: current.get(d.id) }));
}

export async function getDataset(db: Db, principal: Principal, id: string): Promise<DatasetWithCurrent> {
  const d = await findDataset(db, principal, id);
  const current = await currentVersions(db, [d.id]);
  return { dataset: d, current: current.get(d.id) };
}

/** A page of the dataset's versions, newest first. */
export async function listVersions(db: Db, principal: Principal, id: string, page: PageRequest): Promise<Page<VersionRow>> {
  const d = await findDataset(db, principal, id);
  return versionsOfDataset(db, d.id, page);
}
