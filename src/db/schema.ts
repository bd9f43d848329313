import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { MODEL_VERSION_STATUSES, VERSION_STATUSES } from "./version-statuses";

// Timestamps are ISO-8601 strings with millisecond precision: they sort as text and serialize as is.
const timestamps = {
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
};

export const organizations = sqliteTable("organizations", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: text("created_at").notNull(),
});

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  orgId: text("org_id")
    .notNull()
    .references(() => organizations.id),
  displayName: text("display_name").notNull(),
  email: text("email"),
  createdAt: text("created_at").notNull(),
});

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id),
    userId: text("user_id").references(() => users.id),
    name: text("name").notNull(),
    // SHA-256 of the whole key, hex. The key itself is never stored.
    keyHash: text("key_hash").notNull(),
    // First characters of the key, to recognise it in a list without revealing it.
    prefix: text("prefix").notNull(),
    createdAt: text("created_at").notNull(),
    revokedAt: text("revoked_at"),
    // When the key last authenticated a request, to the minute (written at most once a minute per isolate).
    lastUsedAt: text("last_used_at"),
  },
  (t) => [uniqueIndex("api_keys_hash_idx").on(t.keyHash)],
);

export const datasets = sqliteTable(
  "datasets",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id),
    name: text("name").notNull(),
    description: text("description"),
    // Highest version number handed out so far; versions are numbered 1, 2, ...
    lastVersionNumber: integer("last_version_number").notNull().default(0),
    ...timestamps,
  },
  (t) => [index("datasets_org_created_idx").on(t.orgId, t.createdAt, t.id)],
);

export const datasetVersions = sqliteTable(
  "dataset_versions",
  {
    id: text("id").primaryKey(),
    datasetId: text("dataset_id")
      .notNull()
      .references(() => datasets.id),
    orgId: text("org_id").notNull(),
    version: integer("version").notNull(),
    // One of VERSION_STATUSES. The enum types the column in TypeScript only: SQLite gets no check.
    status: text("status", { enum: VERSION_STATUSES }).notNull(),
    archived: integer("archived", { mode: "boolean" }).notNull().default(false),
    sourceFilename: text("source_filename"),
    contentType: text("content_type"),
    format: text("format"),
    sizeBytes: integer("size_bytes"),
    rowCount: integer("row_count"),
    columnCount: integer("column_count"),
    // Column profile (JSON array), written by ingestion.
    columnsJson: text("columns_json"),
    // R2 key of the canonical columnar copy that training and previews read.
    frameKey: text("frame_key"),
    // Whether row ids were generated (0..n-1) or kept from the file's own `id` column.
    idsGenerated: integer("ids_generated", { mode: "boolean" }),
    errorMessage: text("error_message"),
    ...timestamps,
  },
  (t) => [uniqueIndex("dataset_versions_number_idx").on(t.datasetId, t.version), index("dataset_versions_org_idx").on(t.orgId)],
);

// One row per file of a version: direct uploads have one, batch uploads several.
export const datasetFiles = sqliteTable(
  "dataset_files",
  {
    id: text("id").primaryKey(),
    datasetVersionId: text("dataset_version_id")
      .notNull()
      .references(() => datasetVersions.id),
    orgId: text("org_id").notNull(),
    filename: text("filename").notNull(),
    contentType: text("content_type").notNull(),
    // Declared size (signed uploads) or actual size (direct uploads).
    bytes: integer("bytes").notNull(),
    checksumSha256: text("checksum_sha256"),
    objectKey: text("object_key").notNull(),
    // pending | uploaded | failed
    status: text("status").notNull(),
    errorMessage: text("error_message"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("dataset_files_version_idx").on(t.datasetVersionId)],
);

export const models = sqliteTable(
  "models",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id),
    name: text("name").notNull(),
    description: text("description"),
    modelType: text("model_type").notNull(),
    labelColumn: text("label_column"),
    lastVersionNumber: integer("last_version_number").notNull().default(0),
    ...timestamps,
  },
  (t) => [index("models_org_created_idx").on(t.orgId, t.createdAt, t.id)],
);

export const modelVersions = sqliteTable(
  "model_versions",
  {
    id: text("id").primaryKey(),
    modelId: text("model_id")
      .notNull()
      .references(() => models.id),
    orgId: text("org_id").notNull(),
    version: integer("version").notNull(),
    // One of MODEL_VERSION_STATUSES (TypeScript only, as above).
    status: text("status", { enum: MODEL_VERSION_STATUSES }).notNull(),
    datasetId: text("dataset_id").notNull(),
    datasetVersionId: text("dataset_version_id").notNull(),
    configJson: text("config_json").notNull().default("{}"),
    metricsJson: text("metrics_json"),
    /** What a trained version shows about itself beyond metrics (loadings, clusters, threshold...). */
    summaryJson: text("summary_json"),
    artifactKey: text("artifact_key"),
    errorMessage: text("error_message"),
    ...timestamps,
  },
  (t) => [uniqueIndex("model_versions_number_idx").on(t.modelId, t.version), index("model_versions_dataset_idx").on(t.datasetId)],
);

// The listing copy of each job. The job's Durable Object is the single writer of its state and
// mirrors it here; reads of one job go to the object for live progress.
export const jobs = sqliteTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id),
    type: text("type").notNull(),
    status: text("status").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    startedAt: text("started_at"),
    finishedAt: text("finished_at"),
    principalType: text("principal_type"),
    userId: text("user_id"),
    apiKeyId: text("api_key_id"),
    actorName: text("actor_name"),
    modelType: text("model_type"),
    modelId: text("model_id"),
    modelVersionId: text("model_version_id"),
    datasetId: text("dataset_id"),
    datasetVersionId: text("dataset_version_id"),
    datasetName: text("dataset_name"),
    inputFilename: text("input_filename"),
    parentJobId: text("parent_job_id"),
    retryOfJobId: text("retry_of_job_id"),
    inputJson: text("input_json"),
    outputJson: text("output_json"),
    errorMessage: text("error_message"),
    serviceRuntimeVersion: text("service_runtime_version"),
    creditsConsumed: real("credits_consumed"),
    progress: real("progress"),
    currentStep: integer("current_step"),
    totalSteps: integer("total_steps"),
    currentPhase: text("current_phase"),
    metricsHistoryJson: text("metrics_history_json"),
    // Revision of the job object's state this copy reflects (copies only move forward).
    revision: integer("revision").notNull().default(0),
  },
  (t) => [
    index("jobs_org_created_idx").on(t.orgId, t.createdAt, t.id),
    index("jobs_dataset_version_idx").on(t.datasetVersionId),
    // the retention sweep reads inference jobs by when they finished
    index("jobs_type_finished_idx").on(t.type, t.finishedAt),
  ],
);

// A small sync inference's input file and results, kept beside its job row instead of in R2
// (src/inference/inline-files.ts): written in the same batch as the job, one write per call.
export const inlineJobFiles = sqliteTable("inline_job_files", {
  jobId: text("job_id").primaryKey(),
  orgId: text("org_id").notNull(),
  inputBase64: text("input_base64").notNull(),
  resultsJson: text("results_json").notNull(),
});

// Responses remembered per Idempotency-Key so that a retried upload creates nothing twice.
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    orgId: text("org_id").notNull(),
    key: text("key").notNull(),
    route: text("route").notNull(),
    statusCode: integer("status_code").notNull(),
    responseJson: text("response_json").notNull(),
    createdAt: text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
  },
  (t) => [uniqueIndex("idempotency_keys_pk").on(t.orgId, t.route, t.key)],
);
