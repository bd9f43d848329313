import { and, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Principal } from "../api/context";
import { afterCursor, decodeCursor, toPage } from "../api/pagination";
import { inChunks, type Db } from "../db/client";
import { datasets, models, modelVersions } from "../db/schema";
import { presentModel, presentModelVersion } from "./presenter";
import { findModel, type ModelRow, type ModelVersionRow } from "./records";

export interface ModelFilters {
  limit: number;
  cursor?: string;
  model_type?: string;
  dataset_id?: string;
  status?: string;
}

/**
 * The status of a model's current version, in SQL, so lists can filter on the aggregated status:
 * the current version is the latest one not canceled; a canceled one reads as failed.
 */
const currentStatus = sql`(
  select case when mv.status = 'canceled' then 'failed' else mv.status end
  from ${modelVersions} mv where mv.model_id = ${models.id}
  order by (mv.status = 'canceled'), mv.version desc limit 1
)`;

export async function listModels(db: Db, principal: Principal, f: ModelFilters) {
  const cursor = decodeCursor(f.cursor);
  const where: (SQL | undefined)[] = [eq(models.orgId, principal.orgId)];
  if (f.model_type) where.push(eq(models.modelType, f.model_type));
  if (f.dataset_id) {
    where.push(inArray(models.id, db.select({ id: modelVersions.modelId }).from(modelVersions).where(eq(modelVersions.datasetId, f.dataset_id))));
  }
  if (f.status) where.push(sql`${currentStatus} = ${f.status}`);
  where.push(afterCursor(models.createdAt, models.id, cursor));
  const rows = await db
    .select()
    .from(models)
    .where(and(...where))
    .orderBy(desc(models.createdAt), desc(models.id))
    .limit(f.limit + 1);
  const { versions, names } = await related(db, rows.slice(0, f.limit));
  return toPage(rows, f.limit, (m) => presentModel(m, versions.get(m.id) ?? [], names));
}

export async function getModel(db: Db, principal: Principal, id: string) {
  const m = await findModel(db, principal, id);
  const { versions, names } = await related(db, [m]);
  return presentModel(m, versions.get(m.id) ?? [], names);
}

export async function listModelVersions(db: Db, principal: Principal, id: string) {
  const m = await findModel(db, principal, id);
  const rows = await db.select().from(modelVersions).where(eq(modelVersions.modelId, m.id)).orderBy(desc(modelVersions.version));
  return { items: rows.map(presentModelVersion) };
}

/** Versions of the given models (newest first) and the names of the datasets they were trained on. */
async function related(db: Db, list: ModelRow[]) {
  const versions = new Map<string, ModelVersionRow[]>();
  const names = new Map<string, string>();
  if (list.length === 0) return { versions, names };
  const rows = await inChunks(
    list.map((m) => m.id),
    (ids) => db.select().from(modelVersions).where(inArray(modelVersions.modelId, ids)).orderBy(desc(modelVersions.version)),
  );
  for (const v of rows) {
    const l = versions.get(v.modelId);
    if (l) l.push(v);
    else versions.set(v.modelId, [v]);
  }
  for (const l of versions.values()) l.sort((a, b) => b.version - a.version);
  const datasetIds = [...new Set(rows.map((v) => v.datasetId))];
  if (datasetIds.length) {
    const ds = await inChunks(datasetIds, (ids) => db.select({ id: datasets.id, name: datasets.name }).from(datasets).where(inArray(datasets.id, ids)));
    for (const d of ds) names.set(d.id, d.name);
  }
  return { versions, names };
}
