import type { DatasetRow, VersionRow } from "./records";

export function presentCurrentVersion(v: VersionRow | undefined) {
  if (!v) return null;
  return { version_number: v.version, status: v.status, row_count: v.rowCount ?? 0, column_count: v.columnCount ?? 0 };
}

export function presentDataset(d: DatasetRow, current: VersionRow | undefined) {
  return {
    dataset_id: d.id,
    name: d.name,
    description: d.description,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
    current_version: presentCurrentVersion(current),
  };
}

export function presentDatasetDetail(d: DatasetRow, current: VersionRow | undefined) {
  return {
    ...presentDataset(d, current),
    current_version_id: current?.id ?? null,
    columns: current?.columnsJson ? JSON.parse(current.columnsJson) : null,
    source_filename: current?.sourceFilename ?? null,
    size_bytes: current?.sizeBytes ?? null,
    format: current?.format ?? null,
    error_message: current?.errorMessage ?? null,
  };
}

export function presentVersion(v: VersionRow) {
  return {
    dataset_version_id: v.id,
    dataset_id: v.datasetId,
    version: v.version,
    status: v.status,
    created_at: v.createdAt,
    archived: v.archived,
    row_count: v.rowCount,
    column_count: v.columnCount,
    source_filename: v.sourceFilename,
    size_bytes: v.sizeBytes,
    error_message: v.errorMessage,
  };
}
