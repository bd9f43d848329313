/** Models and their versions as the API shows them (schemas in ../schemas/models). */
import type { z } from "@hono/zod-openapi";
import { type ModelType, modelTypes } from "../../model-types/registry";
import type { ModelWithVersions } from "../../models/queries";
import type { ModelConfig, ModelVersionRow } from "../../models/records";
import { currentVersion, modelStatus } from "../../models/status";
import type { Model, ModelVersion } from "../schemas/models";

type Metrics = Record<string, number | null>;

/** Types whose label is a target the model shows (the schema's description says which). */
const SHOWN_LABEL_TYPES: ReadonlySet<string> = new Set(modelTypes.targetLabelled);

function versionMetrics(v: ModelVersionRow | undefined): Metrics {
  return v?.metricsJson ? (JSON.parse(v.metricsJson) as Metrics) : {};
}

function versionSummary(v: ModelVersionRow): Record<string, unknown> | null {
  return v.summaryJson ? (JSON.parse(v.summaryJson) as Record<string, unknown>) : null;
}

/** The model detail of the interface (list items have the same shape). */
export function presentModel({ model: m, versions, datasetNames }: ModelWithVersions): z.input<typeof Model> {
  const current = currentVersion(versions);
  const metrics = versionMetrics(current);
  return {
    model_id: m.id,
    model_name: m.name,
    description: m.description,
    model_type: m.modelType as ModelType,
    status: modelStatus(current),
    current_metrics: metrics,
    current_version: current
      ? { version_id: current.id, version: current.version, status: current.status, metrics, summary: versionSummary(current) }
      : null,
    training_dataset_id: current?.datasetId ?? null,
    training_dataset_name: current ? (datasetNames.get(current.datasetId) ?? null) : null,
    ...(SHOWN_LABEL_TYPES.has(m.modelType) && m.labelColumn !== null ? { label_column: m.labelColumn } : {}),
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}

export function presentModelVersion(v: ModelVersionRow): z.input<typeof ModelVersion> {
  const config = JSON.parse(v.configJson) as Partial<ModelConfig>;
  return {
    model_version_id: v.id,
    model_id: v.modelId,
    version: v.version,
    status: v.status,
    created_at: v.createdAt,
    updated_at: v.updatedAt,
    dataset_id: v.datasetId,
    dataset_version_id: v.datasetVersionId,
    metrics: versionMetrics(v),
    summary: versionSummary(v),
    input_columns: config.input_columns ?? null,
    params: config.params ?? {},
    error_message: v.errorMessage,
  };
}
