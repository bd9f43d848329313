/** The dataset routes as OpenAPI definitions: paths, request schemas, responses. */
import { createRoute, z } from "@hono/zod-openapi";
import {
  BATCH_UPLOAD_MAX_FILES,
  CONTENT_TYPE_MAX_CHARS,
  DESCRIPTION_MAX_CHARS,
  DIRECT_UPLOAD_MAX_BYTES,
  FILENAME_MAX_CHARS,
  MULTIPART_SLACK_BYTES,
  NAME_MAX_CHARS,
  PREVIEW_ROWS,
  PREVIEW_ROWS_DEFAULT,
  ROW_IDS_MAX,
} from "../../core/limits";
import { directUploadTooLarge } from "../../datasets/upload-file";
import { pageQuery, versionPageQuery } from "../pagination";
import { jsonBody, limitBody, multipartOnly } from "../request-body";
import { AUTH_ERRORS, errorResponses } from "../schemas/common";
import {
  BatchUploadPrepared,
  DatasetDetail,
  DatasetPage,
  DatasetPreview,
  DatasetRowLookup,
  DatasetUploadStarted,
  DatasetVersion,
  DatasetVersionList,
  FileReceived,
  SignedUploadPrepared,
  UploadCompleted,
} from "../schemas/datasets";
import { ModelPage } from "../schemas/models";
import { createdAnswer, directFile, idempotencyKeyHeader, jsonAnswer, jsonRequest } from "./parts";

const TAG = ["Datasets"];

const name = z.string().trim().min(1).max(NAME_MAX_CHARS);
const description = z.string().max(DESCRIPTION_MAX_CHARS).optional();
const datasetIdParam = z.object({ dataset_id: z.string().openapi({ param: { name: "dataset_id", in: "path" }, description: "Dataset id" }) });
const versionIdParam = z.object({
  dataset_version_id: z.string().openapi({ param: { name: "dataset_version_id", in: "path" }, description: "Dataset version id" }),
});

const directUploadForm = z.object({
  file: directFile("CSV (.csv, .tsv, .txt) or Parquet"),
  dataset_name: name.optional().openapi({ description: "Name of the new dataset (required unless dataset_id is given)" }),
  dataset_id: z.uuid().optional().openapi({ description: "Add a version to this dataset instead of creating one" }),
  description,
});

/**
 * The declared name and type end up in headers (the signed PUT's Content-Type, the stored
 * object's metadata): control characters (CR/LF would split a header) are refused, and a type
 * must be a media type, `type/subtype` with optional parameters, in printable ASCII.
 */
const fileSpec = z.object({
  filename: z
    .string()
    .trim()
    .min(1)
    .max(FILENAME_MAX_CHARS)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
    .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters (CR, LF, NUL, …)"),
  bytes: z.number().int().min(1),
  content_type: z
    .string()
    .trim()
    .min(1)
    .max(CONTENT_TYPE_MAX_CHARS)
    // A quoted value cannot contain an unescaped quote: each string splits one way only, so a
    // failing match costs linear time (`"[ -~]*"` matched `"`, `;` and `=` too: exponential).
    .regex(
      /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(\s*;\s*[\w!#$&^.+-]+=("(?:[ !#-[\]-~]|\\[ -~])*"|[\w!#$&^.+-]+))*$/,
      "must be a media type such as text/csv",
    ),
});

export const prepareUploadBody = z
  .object({ dataset_name: name.optional(), dataset_id: z.uuid().optional(), description, file: fileSpec })
  .openapi({ example: { dataset_name: "customer_churn", file: { filename: "churn.csv", bytes: 73400320, content_type: "text/csv" } } });

const batchUploadBody = z.object({
  files: z
    .array(fileSpec.extend({ checksum_sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters") }))
    .min(1)
    .max(BATCH_UPLOAD_MAX_FILES),
  dataset_name: name.optional(),
  dataset_id: z.uuid().optional(),
  table_name: z.string().max(NAME_MAX_CHARS).optional(),
  description,
  overrides: z.boolean().optional().openapi({ description: "Add a version to the newest dataset of the same name instead of creating one" }),
});

const rowIds = z
  .array(z.union([z.number().int(), z.string().min(1)]))
  .min(1)
  .max(ROW_IDS_MAX);

export const createDataset = createRoute({
  operationId: "createDataset",
  method: "post",
  path: "/datasets",
  tags: TAG,
  summary: "Create a dataset (or a new version of one) from a direct upload",
  middleware: [
    limitBody(DIRECT_UPLOAD_MAX_BYTES + MULTIPART_SLACK_BYTES, directUploadTooLarge),
    multipartOnly("Send the file as multipart/form-data with a 'file' part and a 'dataset_name' field."),
  ] as const,
  request: {
    headers: idempotencyKeyHeader,
    body: { required: true, content: { "multipart/form-data": { schema: directUploadForm } } },
  },
  responses: {
    201: createdAnswer(DatasetUploadStarted, "The version is created and its ingest job queued", "The dataset: `/datasets/{dataset_id}`"),
    ...errorResponses(...AUTH_ERRORS, 400, 404, 409, 413, 415, 422),
  },
});

export const prepareUpload = createRoute({
  operationId: "prepareUpload",
  method: "post",
  path: "/datasets/upload",
  tags: TAG,
  summary: "Prepare a signed-URL upload (files over 30 MB)",
  middleware: [jsonBody] as const,
  request: { headers: idempotencyKeyHeader, body: jsonRequest(prepareUploadBody) },
  responses: {
    201: createdAnswer(SignedUploadPrepared, "PUT the file to upload_url, then complete the upload", "The dataset: `/datasets/{dataset_id}`"),
    ...errorResponses(...AUTH_ERRORS, 404, 413, 415, 422),
  },
});

export const prepareBatchUpload = createRoute({
  operationId: "prepareBatchUpload",
  method: "post",
  path: "/api/datasets/batch",
  tags: TAG,
  summary: "Prepare a signed-URL upload of several files with checksums",
  middleware: [jsonBody] as const,
  request: { headers: idempotencyKeyHeader, body: jsonRequest(batchUploadBody) },
  responses: {
    201: createdAnswer(BatchUploadPrepared, "One signed URL per file", "The dataset: `/datasets/{dataset_id}`"),
    ...errorResponses(...AUTH_ERRORS, 404, 413, 415, 422),
  },
});

const completion = {
  method: "post" as const,
  tags: TAG,
  summary: "Complete a signed-URL upload and start ingestion",
  description: "Authenticated by `Authorization: Bearer` or, on this endpoint only, `X-API-Key`.",
  security: [{ bearer: [] }, { apiKey: [] }] as Record<string, string[]>[],
  request: { params: versionIdParam },
  responses: {
    200: jsonAnswer(UploadCompleted, "Ingestion started (or the job failed: a file did not verify)"),
    ...errorResponses(...AUTH_ERRORS, 404, 409),
  },
};
export const completeUpload = createRoute({ ...completion, operationId: "completeUpload", path: "/datasets/{dataset_version_id}/complete" });
export const completeUploadApi = createRoute({
  ...completion,
  operationId: "completeUploadApi",
  path: "/api/datasets/{dataset_version_id}/complete",
});

export const listDatasets = createRoute({
  operationId: "listDatasets",
  method: "get",
  path: "/datasets",
  tags: TAG,
  summary: "List datasets, newest first",
  request: {
    query: z.object({
      ...pageQuery,
      search: z.string().max(NAME_MAX_CHARS).optional().openapi({ description: "Case-insensitive substring of the name" }),
    }),
  },
  responses: { 200: jsonAnswer(DatasetPage, "A page of datasets"), ...errorResponses(...AUTH_ERRORS, 422) },
});

export const getDataset = createRoute({
  operationId: "getDataset",
  method: "get",
  path: "/datasets/{dataset_id}",
  tags: TAG,
  summary: "Dataset detail with the column profile of its current version",
  request: { params: datasetIdParam },
  responses: { 200: jsonAnswer(DatasetDetail, "The dataset"), ...errorResponses(...AUTH_ERRORS, 404) },
});

export const deleteDataset = createRoute({
  operationId: "deleteDataset",
  method: "delete",
  path: "/datasets/{dataset_id}",
  tags: TAG,
  summary: "Delete a dataset, its versions and their files",
  request: { params: datasetIdParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(...AUTH_ERRORS, 404) },
});

export const listVersions = createRoute({
  operationId: "listDatasetVersions",
  method: "get",
  path: "/datasets/{dataset_id}/versions",
  tags: TAG,
  summary: "List a dataset's versions, newest first",
  request: { params: datasetIdParam, query: z.object(versionPageQuery) },
  responses: { 200: jsonAnswer(DatasetVersionList, "A page of versions"), ...errorResponses(...AUTH_ERRORS, 404, 422) },
});

export const archiveVersion = createRoute({
  operationId: "archiveDatasetVersion",
  method: "delete",
  path: "/datasets/{dataset_id}/versions/{dataset_version_id}",
  tags: TAG,
  summary: "Archive (soft-delete) a dataset version",
  request: { params: datasetIdParam.extend({ dataset_version_id: z.string().openapi({ param: { name: "dataset_version_id", in: "path" } }) }) },
  responses: { 200: jsonAnswer(DatasetVersion, "The archived version"), ...errorResponses(...AUTH_ERRORS, 404) },
});

export const previewRows = createRoute({
  operationId: "previewDatasetRows",
  method: "get",
  path: "/datasets/{dataset_id}/preview",
  tags: TAG,
  summary: "The first rows of the latest ready version (or of the version named)",
  request: {
    params: datasetIdParam,
    query: z.object({
      limit: z.coerce.number().int().min(1).max(PREVIEW_ROWS).default(PREVIEW_ROWS_DEFAULT),
      dataset_version_id: z.uuid().optional(),
    }),
  },
  responses: { 200: jsonAnswer(DatasetPreview, "The rows"), ...errorResponses(...AUTH_ERRORS, 404, 409, 422) },
});

export const lookupRows = createRoute({
  operationId: "lookupDatasetRows",
  method: "post",
  path: "/datasets/{dataset_id}/rows/lookup",
  tags: TAG,
  summary: "Rows by their ingest-time id",
  middleware: [jsonBody] as const,
  request: { params: datasetIdParam, body: jsonRequest(z.object({ ids: rowIds, dataset_version_id: z.uuid().optional() })) },
  responses: {
    200: jsonAnswer(DatasetRowLookup, "The rows found, and the ids that were not"),
    ...errorResponses(...AUTH_ERRORS, 404, 409, 413, 422),
  },
});

export const listModelsOfDataset = createRoute({
  operationId: "listModelsOfDataset",
  method: "get",
  path: "/datasets/{dataset_id}/models",
  tags: TAG,
  summary: "Models trained on any version of the dataset, newest first",
  request: { params: datasetIdParam, query: z.object(pageQuery) },
  responses: { 200: jsonAnswer(ModelPage, "A page of models"), ...errorResponses(...AUTH_ERRORS, 404, 422) },
});

export const receiveUpload = createRoute({
  operationId: "receiveUpload",
  method: "put",
  path: "/uploads/{token}",
  tags: TAG,
  summary: "The signed upload URL: PUT one file's bytes",
  description:
    "No API key: the signed token in the path authorizes. Content-Type and Content-Length must be those declared when the upload was prepared.",
  security: [],
  request: {
    params: z.object({ token: z.string().openapi({ param: { name: "token", in: "path" } }) }),
    body: { required: true, content: { "*/*": { schema: z.string().openapi({ type: "string", format: "binary" }) } } },
  },
  responses: { 200: jsonAnswer(FileReceived, "The file is stored"), ...errorResponses(400, 403, 404, 409, 411) },
});
