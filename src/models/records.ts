import { and, desc, eq, sql } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { NotFound } from "../core/errors";
import { type Db, nowIso } from "../db/client";
import { insertModelVersion, type ModelVersionRow } from "../db/model-versions";
import { models, modelVersions } from "../db/schema";
import { isUuid } from "../jobs/ids";
import type { ModelType } from "../model-types/registry";

export type ModelRow = typeof models.$inferSelect;
export type { ModelVersionRow };

/**
 * What a version is trained with. Kept on every version: a retrain inherits it from the
 * previous version, so the model's configuration never depends on a job record.
 */
export interface ModelConfig {
  model_type: ModelType;
  label_column: string | null;
  input_columns: string[] | null;
  params: Record<string, unknown>;
}

export function configOf(v: ModelVersionRow): ModelConfig {
  return JSON.parse(v.configJson) as ModelConfig;
}

export async function findModel(db: Db, principal: Principal, id: string): Promise<ModelRow> {
  if (!isUuid(id)) throw new NotFound();
  const rows = await db
    .select()
    .from(models)
    .where(and(eq(models.id, id), eq(models.orgId, principal.orgId)))
    .limit(1);
  if (!rows[0]) throw new NotFound();
  return rows[0];
}

/** The model and its versions (newest first) in one query: the hot path of inference. */
export async function findModelWithVersions(db: Db, principal: Principal, id: string): Promise<{ model: ModelRow; versions: ModelVersionRow[] }> {
  if (!isUuid(id)) throw new NotFound();
  const rows = await db
    .select({ model: models, version: modelVersions })
    .from(models)
    .leftJoin(modelVersions, eq(modelVersions.modelId, models.id))
    .where(and(eq(models.id, id), eq(models.orgId, principal.orgId)))
    .orderBy(desc(modelVersions.version));
  if (!rows[0]) throw new NotFound();
  return { model: rows[0].model, versions: rows.flatMap((r) => (r.version ? [r.version] : [])) };
}

export function latestReady(versions: ModelVersionRow[]): ModelVersionRow | undefined {
  return versions.find((v) => v.status === "ready");
}

export async function createModel(
  db: Db,
  principal: Principal,
  m: { name: string; description: string | null; modelType: ModelType; labelColumn: string | null },
): Promise<ModelRow> {
  const now = nowIso();
  const row: ModelRow = {
    id: crypto.randomUUID(),
    orgId: principal.orgId,
    name: m.name,
    description: m.description,
    modelType: m.modelType,
    labelColumn: m.labelColumn,
    lastVersionNumber: 0,
    createdAt: now,
    updatedAt: now,
  };
  await db.insert(models).values(row);
  return row;
}

/** A new queued version; its number comes from an atomic increment (concurrent retrains differ). */
export async function addVersion(
  db: Db,
  model: ModelRow,
  v: { datasetId: string; datasetVersionId: string; config: ModelConfig },
): Promise<ModelVersionRow> {
  const now = nowIso();
  const [m] = await db
    .update(models)
    .set({ lastVersionNumber: sql`${models.lastVersionNumber} + 1`, updatedAt: now })
    .where(eq(models.id, model.id))
    .returning();
  if (!m) throw new NotFound(); // deleted meanwhile
  const row: ModelVersionRow = {
    id: crypto.randomUUID(),
    modelId: model.id,
    orgId: model.orgId,
    version: m.lastVersionNumber,
    status: "queued",
    datasetId: v.datasetId,
    datasetVersionId: v.datasetVersionId,
    configJson: JSON.stringify(v.config),
    metricsJson: null,
    summaryJson: null,
    artifactKey: null,
    errorMessage: null,
    createdAt: now,
    updatedAt: now,
  };
  await insertModelVersion(db, row);
  return row;
}
