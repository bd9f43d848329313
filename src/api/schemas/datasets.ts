/**
 * Response schemas of the dataset routes, matching `src/datasets/presenter.ts`, `rows.ts`,
 * `direct-upload.ts`, `signed-upload.ts` and the answers built in `src/api/routes/datasets.ts`.
 */
import { z } from "@hono/zod-openapi";
import { VERSION_STATUSES } from "../../db/version-statuses";
import { DatasetVersionRef, nextCursor, orNull } from "./common";
import { valueList } from "./value-list";

const VERSION_STATUS = `Dataset version status: ${valueList(VERSION_STATUSES)}`;
const JOB_ID = "Id of the dataset_ingest job (UUID form; `GET /jobs/{job_id}` takes it as is)";
const timestamp = z.iso.datetime();
const uuid = z.uuid();

/** Summary of a dataset's current version (its latest version that is not archived). */
const DatasetCurrentVersion = z
  .object({
    version_number: z.number().int(),
    status: z.string().openapi({ description: VERSION_STATUS }),
    row_count: z.number().int().openapi({ description: "0 until ingestion has counted the rows" }),
    column_count: z.number().int().openapi({ description: "0 until ingestion has read the columns" }),
  })
  .openapi("DatasetCurrentVersion");

const datasetFields = {
  dataset_id: uuid,
  name: z.string(),
  description: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  current_version: orNull(DatasetCurrentVersion).openapi({
    description: "The latest version that is not archived; null when every version is archived",
  }),
};

const CHURN_ID = "3f1c2a9e-7b4d-4c1e-9a2f-5d6e7f8a9b0c";
const CHURN_VERSION_ID = "8a7b6c5d-4e3f-4a1b-9c2d-1e0f2a3b4c5d";
const churnItem = {
  dataset_id: CHURN_ID,
  name: "customer_churn",
  description: "Monthly customer snapshot with churn flag",
  created_at: "2025-03-02T09:14:07.512Z",
  updated_at: "2025-03-02T09:14:07.512Z",
  current_version: { version_number: 1, status: "ready", row_count: 12480, column_count: 4 },
};

/** Dataset list item (GET /datasets). */
export const DatasetListItem = z.object(datasetFields).openapi("Dataset", { example: churnItem });

/** One column of the dataset detail's `columns`: the profile written by ingestion. */
const ColumnProfile = z
  .object({
    name: z.string(),
    type: z.enum(["numeric", "boolean", "datetime", "categorical", "text", "id"]),
    missing_count: z.number().int(),
    distinct_count: z.number().int(),
    min: z
      .union([z.number(), z.string()])
      .nullable()
      .openapi({ description: "Numeric and numeric id columns: a number; datetime: an ISO string; else null" }),
    max: z.union([z.number(), z.string()]).nullable().openapi({ description: "As `min`" }),
    mean: z.number().nullable().openapi({ description: "Numeric: the mean; boolean: the share of true; else null" }),
    std: z.number().nullable().openapi({ description: "Numeric: sample standard deviation (n − 1); null with fewer than two values" }),
    top_values: z
      .array(z.object({ value: z.union([z.string(), z.boolean()]), count: z.number().int() }))
      .nullable()
      .openapi({ description: "Categorical, text and boolean columns: the 5 most frequent values, most frequent first; else null" }),
    integer_valued: z.boolean().optional().openapi({ description: "Numeric columns with finite values only: whether every value is an integer" }),
  })
  .openapi("ColumnProfile");

/** GET /datasets/{dataset_id}: the list item plus the current version's details. */
export const DatasetDetail = z
  .object({
    ...datasetFields,
    current_version_id: uuid.nullable().openapi({ description: "Id of the current version; null when there is none" }),
    columns: z.array(ColumnProfile).nullable().openapi({ description: "Column profile of the current version; null until ingestion has written it" }),
    source_filename: z.string().nullable().openapi({ description: "Uploaded file name (comma-separated for a multi-file upload)" }),
    size_bytes: z.number().int().nullable(),
    format: z.enum(["csv", "parquet"]).nullable(),
    error_message: z.string().nullable().openapi({ description: "Why ingestion of the current version failed" }),
  })
  .openapi("DatasetDetail", {
    example: {
      ...churnItem,
      current_version_id: CHURN_VERSION_ID,
      columns: [
        {
          name: "age",
          type: "numeric",
          missing_count: 0,
          distinct_count: 62,
          min: 18,
          max: 79,
          mean: 41.7,
          std: 12.9,
          top_values: null,
          integer_valued: true,
        },
        {
          name: "city",
          type: "categorical",
          missing_count: 14,
          distinct_count: 38,
          min: null,
          max: null,
          mean: null,
          std: null,
          top_values: [
            { value: "Lyon", count: 2210 },
            { value: "Paris", count: 1984 },
            { value: "Lille", count: 1102 },
            { value: "Nantes", count: 967 },
            { value: "Bordeaux", count: 912 },
          ],
        },
        {
          name: "income",
          type: "numeric",
          missing_count: 121,
          distinct_count: 11873,
          min: 9200.5,
          max: 248000,
          mean: 52341.8,
          std: 21877.4,
          top_values: null,
          integer_valued: false,
        },
        {
          name: "churned",
          type: "boolean",
          missing_count: 0,
          distinct_count: 2,
          min: null,
          max: null,
          mean: 0.18,
          std: null,
          top_values: [
            { value: false, count: 10234 },
            { value: true, count: 2246 },
          ],
        },
      ],
      source_filename: "churn.csv",
      size_bytes: 412388,
      format: "csv",
      error_message: null,
    },
  });

/** A dataset version (GET /datasets/{dataset_id}/versions item; answer of archiving a version). */
export const DatasetVersion = z
  .object({
    dataset_version_id: uuid,
    dataset_id: uuid,
    version: z.number().int(),
    status: z.string().openapi({ description: VERSION_STATUS }),
    created_at: timestamp,
    archived: z.boolean().openapi({ description: "True when the version is archived (soft-deleted): still listed, never current" }),
    row_count: z.number().int().nullable().openapi({ description: "Null until ingested" }),
    column_count: z.number().int().nullable().openapi({ description: "Null until ingested" }),
    source_filename: z.string().nullable(),
    size_bytes: z.number().int().nullable(),
    error_message: z.string().nullable().openapi({ description: "Why ingestion failed" }),
  })
  .openapi("DatasetVersion");

/** GET /datasets: newest first. */
export const DatasetPage = z.object({ items: z.array(DatasetListItem), next_cursor: nextCursor }).openapi("DatasetPage");

/** GET /datasets/{dataset_id}/versions: newest first, archived versions included. */
export const DatasetVersionList = z.object({ items: z.array(DatasetVersion), next_cursor: nextCursor }).openapi("DatasetVersionList");

/** POST /datasets: the version created and its ingest job. */
export const DatasetUploadStarted = z
  .object({
    dataset: z.object({ id: uuid, version_id: uuid, version_number: z.number().int() }),
    job_id: uuid.openapi({ description: JOB_ID }),
    status: z.string().openapi({ description: "Status of the ingest job; `queued` at first" }),
  })
  .openapi("DatasetUploadStarted");

/** POST /datasets/upload: one signed PUT URL, the version waiting for it, its ingest job. */
export const SignedUploadPrepared = z
  .object({
    upload: z.object({
      upload_url: z.url().openapi({ description: "PUT the file here, with the declared Content-Type and Content-Length" }),
      method: z.literal("PUT"),
      headers: z.object({ "Content-Type": z.string() }).openapi({ description: "Headers the PUT must carry" }),
      expires_at: timestamp.openapi({ description: "When the URL stops being accepted" }),
    }),
    dataset: DatasetVersionRef,
    job_id: uuid.openapi({ description: JOB_ID }),
    status: z.string().openapi({ description: "Status of the ingest job: `waiting_for_upload`" }),
  })
  .openapi("SignedUploadPrepared");

/** One file of a batch upload: where to PUT it. */
const BatchUploadFile = z
  .object({
    file_id: uuid,
    filename: z.string(),
    bytes: z.number().int(),
    content_type: z.string(),
    upload_url: z.url(),
    object_name: z.string().openapi({ description: "Storage key the file is written to" }),
    bucket: z.string(),
  })
  .openapi("BatchUploadFile");

/** POST /api/datasets/batch: one signed URL per file, in request order. */
export const BatchUploadPrepared = z
  .object({
    dataset_id: uuid,
    dataset_version_id: uuid,
    job_id: uuid.openapi({ description: JOB_ID }),
    expires_at: timestamp.openapi({ description: "When the upload URLs stop being accepted" }),
    uploads: z.array(BatchUploadFile),
  })
  .openapi("BatchUploadPrepared");

/** POST /datasets/{dataset_version_id}/complete. */
export const UploadCompleted = z
  .object({
    dataset_id: uuid,
    dataset_version_id: uuid,
    job_id: uuid.openapi({ description: JOB_ID }),
    status: z.string().openapi({
      description:
        "Status of the ingest job after completion: `queued` (or further along) when ingestion was triggered; `failed` when a file failed its checksum",
    }),
    counts: z
      .object({ expected: z.number().int(), uploaded: z.number().int(), failed: z.number().int() })
      .openapi({ description: "Files declared, received, and refused (checksum mismatch)" }),
  })
  .openapi("UploadCompleted");

/** PUT /uploads/{token}: one file received. */
export const FileReceived = z
  .object({
    file_id: uuid,
    filename: z.string(),
    bytes: z.number().int(),
    status: z.literal("uploaded"),
  })
  .openapi("FileReceived");

/** A table row: column name → cell. */
const DatasetRow = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean()]).nullable())
  .openapi("DatasetRow", { description: "Column name → value (null when missing; datetimes as ISO strings), in column order" });

/** GET /datasets/{dataset_id}/preview: the first rows of a ready version. */
export const DatasetPreview = z
  .object({
    dataset_id: uuid,
    dataset_version_id: uuid,
    version_number: z.number().int(),
    columns: z.array(z.object({ name: z.string(), type: ColumnProfile.shape.type })),
    total_rows: z.number().int(),
    rows: z.array(DatasetRow),
  })
  .openapi("DatasetPreview");

/** POST /datasets/{dataset_id}/rows/lookup: rows by ingest-time id, in the order asked. */
export const DatasetRowLookup = z
  .object({
    dataset_id: uuid,
    dataset_version_id: uuid,
    items: z.array(DatasetRow),
    missing_ids: z.array(z.union([z.number(), z.string()])).openapi({ description: "Ids asked for that are not in the version, as given" }),
  })
  .openapi("DatasetRowLookup");
