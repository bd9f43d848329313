/**
 * Every query of `model_versions`. (Which version is current, and the model status it gives, is
 * the rule of models/status.ts.)
 */
import { and, desc, eq, inArray, ne } from "drizzle-orm";
import { type Db, inChunks, nowIso } from "./client";
import { beforeVersion, type Page, type PageRequest, toVersionPage } from "./cursor";
import { modelVersions } from "./schema";
import type { ModelVersionStatus } from "./version-statuses";

export type ModelVersionRow = typeof modelVersions.$inferSelect;

/** Every version of a model, newest first. */
export async function versionsOfModel(db: Db, modelId: string): Promise<ModelVersionRow[]> {
  return db.select().from(modelVersions).where(eq(modelVersions.modelId, modelId)).orderBy(desc(modelVersions.version));
}

/** A page of a model's versions, newest first. */
export async function pageOfModelVersions(db: Db, modelId: string, page: PageRequest): Promise<Page<ModelVersionRow>> {
  const rows = await db
    .select()
    .from(modelVersions)
    .where(and(eq(modelVersions.modelId, modelId), beforeVersion(modelVersions.version, page.cursor)))
    .orderBy(desc(modelVersions.version))
    .limit(page.limit + 1);
  return toVersionPage(rows, page.limit, (v) => v);
}

/** The versions of several models, each list newest first. */
export async function versionsOfModels(db: Db, modelIds: string[]): Promise<Map<string, ModelVersionRow[]>> {
  const rows = await inChunks(modelIds, (ids) => db.select().from(modelVersions).where(inArray(modelVersions.modelId, ids)));
  const out = new Map<string, ModelVersionRow[]>();
  for (const v of rows) {
    const list = out.get(v.modelId);
    if (list) list.push(v);
    else out.set(v.modelId, [v]);
  }
  for (const list of out.values()) list.sort((a, b) => b.version - a.version);
  return out;
}

/** A version of a model by number or by id. */
export async function versionOfModel(db: Db, modelId: string, ref: { number: number } | { id: string }): Promise<ModelVersionRow | undefined> {
  const which = "number" in ref ? eq(modelVersions.version, ref.number) : eq(modelVersions.id, ref.id);
  const [v] = await db
    .select()
    .from(modelVersions)
    .where(and(eq(modelVersions.modelId, modelId), which))
    .limit(1);
  return v;
}

export async function modelVersionById(db: Db, versionId: string): Promise<ModelVersionRow | undefined> {
  const [v] = await db.select().from(modelVersions).where(eq(modelVersions.id, versionId)).limit(1);
  return v;
}

/** Model id and number of each version, for version references. */
export async function modelVersionRefs(db: Db, versionIds: string[]): Promise<Map<string, { modelId: string; version: number }>> {
  const rows = await inChunks(versionIds, (ids) =>
    db
      .select({ id: modelVersions.id, modelId: modelVersions.modelId, version: modelVersions.version })
      .from(modelVersions)
      .where(inArray(modelVersions.id, ids)),
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/** Ids of the models with a version trained on a dataset (any of its versions), as a subquery. */
export function modelIdsTrainedOn(db: Db, datasetId: string) {
  return db.select({ id: modelVersions.modelId }).from(modelVersions).where(eq(modelVersions.datasetId, datasetId));
}

export async function insertModelVersion(db: Db, row: ModelVersionRow): Promise<void> {
  await db.insert(modelVersions).values(row);
}

/** The status a version takes from its training job; a version that is ready stays ready. */
export async function setModelVersionStatus(db: Db, versionId: string, status: ModelVersionStatus, errorMessage: string | null): Promise<void> {
  await db
    .update(modelVersions)
    .set({ status, errorMessage, updatedAt: nowIso() })
    .where(and(eq(modelVersions.id, versionId), ne(modelVersions.status, "ready")));
}

/** What a finished training produced (or, with nulls, the undoing of it when its success was refused). */
export async function recordTrained(
  db: Db,
  versionId: string,
  t: { metricsJson: string | null; summaryJson: string | null; artifactKey: string | null },
): Promise<void> {
  await db
    .update(modelVersions)
    .set({ ...t, updatedAt: nowIso() })
    .where(eq(modelVersions.id, versionId));
}

export async function deleteModelVersion(db: Db, versionId: string): Promise<void> {
  await db.delete(modelVersions).where(eq(modelVersions.id, versionId));
}

export function deleteVersionsOfModelStatement(db: Db, modelId: string) {
  return db.delete(modelVersions).where(eq(modelVersions.modelId, modelId));
}
