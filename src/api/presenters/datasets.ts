/** Datasets and their versions as the API shows them (schemas in ../schemas/datasets). */
import type { z } from "@hono/zod-openapi";
import type { DatasetWithCurrent } from "../../datasets/queries";
import type { VersionRow } from "../../datasets/records";
import { ID_COLUMN } from "../../ingest/ids";
import type { ColumnProfile } from "../../ml/profile";
import type { DatasetDetail, DatasetListItem, DatasetVersion } from "../schemas/datasets";

export function presentDataset({ dataset: d, current }: DatasetWithCurrent): z.input<typeof DatasetListItem> {
  return {
    dataset_id: d.id,
    name: d.name,
    description: d.description,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
    current_version: current
      ? { version_number: current.version, status: current.status, row_count: current.rowCount ?? 0, column_count: current.columnCount ?? 0 }
      : null,
  };
}

export function presentDatasetDetail(x: DatasetWithCurrent): z.input<typeof DatasetDetail> {
  const { current } = x;
  return {
    ...presentDataset(x),
    current_version_id: current?.id ?? null,
    columns: current?.columnsJson ? uploadedColumns(JSON.parse(current.columnsJson) as ColumnProfile[], current.idsGenerated) : null,
    source_filename: current?.sourceFilename ?? null,
    size_bytes: current?.sizeBytes ?? null,
    format: (current?.format as "csv" | "parquet" | null | undefined) ?? null,
    error_message: current?.errorMessage ?? null,
  };
}

/** The columns of the file: a row id the service generated is not one of them (a file's own `id` is). */
const uploadedColumns = (columns: ColumnProfile[], idsGenerated: boolean | null) =>
  idsGenerated ? columns.filter((c) => c.name !== ID_COLUMN) : columns;

export function presentVersion(v: VersionRow): z.input<typeof DatasetVersion> {
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
