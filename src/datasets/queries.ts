import { and, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Principal } from "../api/context";
import { afterCursor, decodeCursor, toPage } from "../api/pagination";
import { inChunks, type Db } from "../db/client";
import { datasets, datasetVersions } from "../db/schema";
import { listModels } from "../models/queries";
import { presentDataset, presentDatasetDetail, presentVersion } from "./presenter";
import { findDataset, type VersionRow } from "./records";

/** The current version of each dataset: its latest version that is not archived. */
async function currentVersions(db: Db, datasetIds: string[]): Promise<Map<string, VersionRow>> {
  const rows = await inChunks(datasetIds, (ids) =>
    db
      .select()
      .from(datasetVersions)
      .where(and(inArray(datasetVersions.datasetId, ids), eq(datasetVersions.archived, false)))
      .orderBy(desc(datasetVersions.version)),
  );
  const out = new Map<string, VersionRow>();
  for (const r of rows) if (!out.has(r.datasetId)) out.set(r.datasetId, r);
  return out;
}

export async function listDatasets(db: Db, principal: Principal, q: { limit: number; cursor?: string; search?: string }) {
  const cursor = decodeCursor(q.cursor);
  const where: (SQL | undefined)[] = [eq(datasets.orgId, principal.orgId)];
  if (q.search) {
    // Case-insensitive substring. instr, not LIKE: D1 refuses LIKE patterns over 50 bytes ("LIKE
    // or GLOB pattern too complex"), and instr has no wildcards to escape.
    where.push(sql`instr(lower(${datasets.name}), lower(${q.search})) > 0`);
  }
  where.push(afterCursor(datasets.createdAt, datasets.id, cursor));
  const rows = await db
    .select()
    .from(datasets)
    .where(and(...where))
    .orderBy(desc(datasets.createdAt), desc(datasets.id))
    .limit(q.limit + 1);
  const current = await currentVersions(db, rows.map((r) => r.id));
  return toPage(rows, q.limit, (d) => presentDataset(d, current.get(d.id)));
}

export async function getDataset(db: Db, principal: Principal, id: string) {
  const d = await findDataset(db, principal, id);
  const current = await currentVersions(db, [d.id]);
  return presentDatasetDetail(d, current.get(d.id));
}

export async function listVersions(db: Db, principal: Principal, id: string) {
  const d = await findDataset(db, principal, id);
  const rows = await db
    .select()
    .from(datasetVersions)
    .where(eq(datasetVersions.datasetId, d.id))
    .orderBy(desc(datasetVersions.version));
  return { items: rows.map(presentVersion) };
}

/** Models with at least one version trained on any version of the dataset, newest first. */
export async function listModelsOfDataset(db: Db, principal: Principal, id: string, q: { limit: number; cursor?: string }) {
  const d = await findDataset(db, principal, id);
  return listModels(db, principal, { ...q, dataset_id: d.id });
}
