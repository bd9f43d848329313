import { currentVersion, type ModelRow, type ModelVersionRow } from "./records";

/** Model status is the current version's: queued → processing → ready | failed. */
const MODEL_STATUS: Record<string, string> = {
  queued: "queued",
  processing: "processing",
  ready: "ready",
  failed: "failed",
  canceled: "failed",
};

export function modelStatus(current: ModelVersionRow | undefined): string {
  return current ? (MODEL_STATUS[current.status] ?? current.status) : "queued";
}

export function versionMetrics(v: ModelVersionRow | undefined): Record<string, unknown> {
  return v?.metricsJson ? (JSON.parse(v.metricsJson) as Record<string, unknown>) : {};
}

/** The model detail of the interface (list items have the same shape). */
export function presentModel(m: ModelRow, versions: ModelVersionRow[], datasetNames: Map<string, string>) {
  const current = currentVersion(versions);
  const metrics = versionMetrics(current);
  return {
    model_id: m.id,
    model_name: m.name,
    description: m.description,
    model_type: m.modelType,
    status: modelStatus(current),
    current_metrics: metrics,
    current_version: current
      ? { version_id: current.id, version: current.version, status: current.status, metrics }
      : null,
    training_dataset_id: current?.datasetId ?? null,
    training_dataset_name: current ? (datasetNames.get(current.datasetId) ?? null) : null,
    ...(m.modelType === "prediction" ? { label_column: m.labelColumn } : {}),
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}

export function presentModelVersion(v: ModelVersionRow) {
  const config = JSON.parse(v.configJson) as Record<string, unknown>;
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
    input_columns: config.input_columns ?? null,
    params: config.params ?? {},
    error_message: v.errorMessage,
  };
}
