import { and, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { findDataset } from "../datasets/records";
import { type Db, inChunks } from "../db/client";
import { afterCursor, type PageRequest, toPage } from "../db/cursor";
import { modelIdsTrainedOn, pageOfModelVersions, versionsOfModels } from "../db/model-versions";
import { datasets, models } from "../db/schema";
import { findModel, type ModelRow, type ModelVersionRow } from "./records";
import { modelStatusSql } from "./status";

/** A model with its versions (newest first) and the names of the datasets they were trained on. */
export interface ModelWithVersions {
  model: ModelRow;
  versions: ModelVersionRow[];
  datasetNames: Map<string, string>;
}

export interface ModelFilters extends PageRequest {
  model_type?: string;
  dataset_id?: string;
  status?: string;
}

export async function listModels(db: Db, principal: Principal, f: ModelFilters) {
  const where: (SQL | undefined)[] = [eq(models.orgId, principal.orgId)];
  if (f.model_type) where.push(eq(models.modelType, f.model_type));
  if (f.dataset_id) where.push(inArray(models.id, modelIdsTrainedOn(db, f.dataset_id)));
  if (f.status) where.push(sql`${modelStatusSql()} = ${f.status}`);
  where.push(afterCursor(models.createdAt, models.id, f.cursor));
  const rows = await db
    .select()
    .from(models)
    .where(and(...where))
    .orderBy(desc(models.createdAt), desc(models.id))
    .limit(f.limit + 1);
  const { versions, names } = await related(db, rows.slice(0, f.limit));
  return toPage(rows, f.limit, (m): ModelWithVersions => ({ model: m, versions: versions.get(m.id) ?? [], datasetNames: names }));
}

/** Models with at least one version trained on any version of the dataset, newest first. */
export async function listModelsOfDataset(db: Db, principal: Principal, datasetId: string, q: PageRequest) {
  const d = await findDataset(db, principal, datasetId);
  return listModels(db, principal, { ...q, dataset_id: d.id });
}

export async function getModel(db: Db, principal: Principal, id: string): Promise<ModelWithVersions> {
  const m = await findModel(db, principal, id);
  const { versions, names } = await related(db, [m]);
  return { model: m, versions: versions.get(m.id) ?? [], datasetNames: names };
}

/** A page of the model's versions, newest first. */
export async function listModelVersions(db: Db, principal: Principal, id: string, page: PageRequest) {
  const m = await findModel(db, principal, id);
  return pageOfModelVersions(db, m.id, page);
}

/** Versions of the given models (newest first) and the names of the datasets they were trained on. */
async function related(db: Db, list: ModelRow[]) {
  const versions = await versionsOfModels(
    db,
    list.map((m) => m.id),
  );
  const names = new Map<string, string>();
  const datasetIds = [...new Set([...versions.values()].flat().map((v) => v.datasetId))];
  const ds = await inChunks(datasetIds, (ids) => db.select({ id: datasets.id, name: datasets.name }).from(datasets).where(inArray(datasets.id, ids)));
  for (const d of ds) names.set(d.id, d.name);
  return { versions, names };
}
