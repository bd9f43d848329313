/** The model routes as OpenAPI definitions: paths, request schemas, responses. */
import { createRoute, z } from "@hono/zod-openapi";
import {
  COLUMN_NAME_MAX_CHARS,
  DESCRIPTION_MAX_CHARS,
  DIRECT_UPLOAD_MAX_BYTES,
  ID_MAX_CHARS,
  INPUT_COLUMNS_MAX,
  MULTIPART_SLACK_BYTES,
  NAME_MAX_CHARS,
} from "../../core/limits";
import { OUTPUT_FORMATS } from "../../inference/output";
import { MODEL_TYPES } from "../../model-types/registry";
import { inferenceFileTooLarge } from "../../models/infer";
import { MODEL_STATUSES } from "../../models/status";
import { pageQuery, versionPageQuery } from "../pagination";
import { jsonBody, jsonOrMultipart, limitBody, multipartOnly } from "../request-body";
import { AUTH_ERRORS, errorResponses } from "../schemas/common";
import { JobDetail } from "../schemas/jobs";
import { labelColumnDescription, paramsDescription } from "../schemas/model-type-docs";
import { CausalEffect, Model, ModelPage, ModelVersionList, SyncInferenceResult, TrainingStarted } from "../schemas/models";
import { createdAnswer, directFile, idempotencyKeyHeader, jsonAnswer, jsonRequest } from "./parts";

const TAG = ["Models"];

const id = z.string().min(1).max(ID_MAX_CHARS);
const modelIdParam = z.object({ model_id: z.string().openapi({ param: { name: "model_id", in: "path" }, description: "Model id" }) });

const trainBody = z
  .object({
    model_name: z.string().trim().min(1).max(NAME_MAX_CHARS),
    model_type: z.enum(MODEL_TYPES),
    dataset_id: id
      .optional()
      .openapi({ description: "Train on the latest ready version of this dataset (exactly one of dataset_id, dataset_version_id)" }),
    dataset_version_id: id.optional(),
    label_column: z.string().min(1).max(COLUMN_NAME_MAX_CHARS).optional().openapi({ description: labelColumnDescription() }),
    input_columns: z
      .array(z.string().min(1).max(COLUMN_NAME_MAX_CHARS))
      .min(1)
      .max(INPUT_COLUMNS_MAX)
      .optional()
      .openapi({ description: "Default: every usable column" }),
    description: z.string().max(DESCRIPTION_MAX_CHARS).optional(),
    params: z.record(z.string(), z.unknown()).optional().openapi({ description: paramsDescription() }),
  })
  .strict()
  .openapi({
    example: { model_name: "churn-predictor", model_type: "prediction", dataset_id: "3f1c2a9e-7b4d-4c1e-9a2f-5d6e7f8a9b0c", label_column: "churned" },
  });

const retrainBody = z
  .object({ dataset_id: id.optional(), dataset_version_id: id.optional() })
  .strict()
  .openapi({ description: "Exactly one of dataset_id or dataset_version_id" });

const inferForm = z.object({
  file: directFile("CSV or Parquet", "; extra columns are ignored, missing ones count as missing"),
  output_type: z.enum(OUTPUT_FORMATS).default("json").openapi({ description: "json (predictions in the answer), csv or parquet (a file)" }),
  model_version_id: z.string().min(1).optional().openapi({ description: "Default: the latest ready version" }),
});

export const train = createRoute({
  operationId: "trainModel",
  method: "post",
  path: "/models/train",
  tags: TAG,
  summary: "Train a new model",
  middleware: [jsonBody] as const,
  request: { headers: idempotencyKeyHeader, body: jsonRequest(trainBody) },
  responses: {
    201: createdAnswer(TrainingStarted, "The model, its first version and the queued training job", "The model: `/models/{model_id}`"),
    ...errorResponses(...AUTH_ERRORS, 409, 413, 422),
  },
});

export const retrain = createRoute({
  operationId: "retrainModel",
  method: "post",
  path: "/models/{model_id}/retrain",
  tags: TAG,
  summary: "Train a new version on new data, with the previous version's configuration",
  middleware: [jsonBody] as const,
  request: { params: modelIdParam, headers: idempotencyKeyHeader, body: jsonRequest(retrainBody) },
  responses: {
    201: createdAnswer(TrainingStarted, "The new version and its queued training job", "The model: `/models/{model_id}`"),
    ...errorResponses(...AUTH_ERRORS, 404, 409, 413, 422),
  },
});

export const listModels = createRoute({
  operationId: "listModels",
  method: "get",
  path: "/models",
  tags: TAG,
  summary: "List models, newest first",
  request: {
    query: z.object({
      ...pageQuery,
      model_type: z.enum(MODEL_TYPES).optional(),
      dataset_id: z.string().min(1).optional().openapi({ description: "Models with a version trained on this dataset" }),
      status: z.enum(MODEL_STATUSES).optional(),
    }),
  },
  responses: { 200: jsonAnswer(ModelPage, "A page of models"), ...errorResponses(...AUTH_ERRORS, 422) },
});

export const getModel = createRoute({
  operationId: "getModel",
  method: "get",
  path: "/models/{model_id}",
  tags: TAG,
  summary: "Model detail",
  request: { params: modelIdParam },
  responses: { 200: jsonAnswer(Model, "The model"), ...errorResponses(...AUTH_ERRORS, 404) },
});

export const deleteModel = createRoute({
  operationId: "deleteModel",
  method: "delete",
  path: "/models/{model_id}",
  tags: TAG,
  summary: "Delete a model, its versions and their artifacts",
  request: { params: modelIdParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(...AUTH_ERRORS, 404) },
});

export const listModelVersions = createRoute({
  operationId: "listModelVersions",
  method: "get",
  path: "/models/{model_id}/versions",
  tags: TAG,
  summary: "List a model's versions, newest first",
  request: { params: modelIdParam, query: z.object(versionPageQuery) },
  responses: { 200: jsonAnswer(ModelVersionList, "A page of versions"), ...errorResponses(...AUTH_ERRORS, 404, 422) },
});

export const getArtifact = createRoute({
  operationId: "getModelArtifact",
  method: "get",
  path: "/models/{model_id}/versions/{version}/artifact",
  tags: TAG,
  summary: "Download a ready version's ONNX graph, its featurizer, or a search model's index",
  request: {
    params: modelIdParam.extend({
      version: z.string().openapi({ param: { name: "version", in: "path" }, description: "Version number or version id" }),
    }),
    query: z.object({
      part: z.enum(["onnx", "featurizer", "index", "summary", "pseudo_outcomes"]).default("onnx").openapi({
        description:
          "onnx (the model; the featurizer is in its metadata), featurizer (JSON), index (search models: the nearest-neighbour index over the training rows, binary; 404 for other types), summary (JSON: the version's whole summary, of which the model shows a copy cut to 64 KB; non-prediction types) or pseudo_outcomes (causal models: the cross-fitted AIPW pseudo-outcome of each training row and treated arm, float64 little-endian, NaN for rows not used)",
      }),
    }),
  },
  responses: {
    200: {
      description: "The file",
      content: {
        "application/octet-stream": { schema: z.string().openapi({ type: "string", format: "binary" }) },
        "application/json": { schema: z.record(z.string(), z.unknown()) },
      },
    },
    ...errorResponses(...AUTH_ERRORS, 404, 409, 422),
  },
});

export const infer = createRoute({
  operationId: "infer",
  method: "post",
  path: "/models/{model_id}/infer",
  tags: ["Inference"],
  summary: "Synchronous inference on an uploaded file",
  middleware: [
    limitBody(DIRECT_UPLOAD_MAX_BYTES + MULTIPART_SLACK_BYTES, inferenceFileTooLarge),
    multipartOnly("Send the file as multipart/form-data with a 'file' part (and optionally 'output_type', 'model_version_id')."),
  ] as const,
  request: { params: modelIdParam, body: { required: true, content: { "multipart/form-data": { schema: inferForm } } } },
  responses: {
    200: {
      description: "json: the predictions in `data`; csv and parquet: the file, with the job in X-Job-Id",
      content: {
        "application/json": { schema: SyncInferenceResult },
        "text/csv": { schema: z.string() },
        "application/vnd.apache.parquet": { schema: z.string().openapi({ type: "string", format: "binary" }) },
      },
    },
    ...errorResponses(...AUTH_ERRORS, 400, 404, 409, 413, 415, 422),
  },
});

const groupBy = z
  .string()
  .min(1)
  .max(COLUMN_NAME_MAX_CHARS)
  .optional()
  .openapi({ description: "A column of the data: the effect per value of it (at most 100 values)" });
const versionChoice = z.string().min(1).optional().openapi({ description: "Default: the latest ready version" });

const effectJson = z
  .object({
    dataset_id: id.optional().openapi({ description: "Estimate over the latest ready version of this dataset (default: the model's training data)" }),
    dataset_version_id: id.optional(),
    group_by: groupBy,
    model_version_id: versionChoice,
  })
  .strict()
  .openapi({ description: "{} (or no body): over the training data, cross-fitted. At most one of dataset_id, dataset_version_id." });

const effectForm = z.object({
  file: directFile("CSV or Parquet"),
  group_by: groupBy,
  model_version_id: versionChoice,
});

export const estimateCausalEffect = createRoute({
  operationId: "estimateCausalEffect",
  method: "post",
  path: "/models/{model_id}/estimate-causal-effect",
  tags: ["Inference"],
  summary: "Average treatment effect of a causal model, with its 95% interval, over the training data, a dataset or a file",
  middleware: [limitBody(DIRECT_UPLOAD_MAX_BYTES + MULTIPART_SLACK_BYTES, inferenceFileTooLarge), jsonOrMultipart] as const,
  request: {
    params: modelIdParam,
    body: { required: false, content: { "application/json": { schema: effectJson }, "multipart/form-data": { schema: effectForm } } },
  },
  responses: {
    200: jsonAnswer(CausalEffect, "The estimate (and per group with group_by)"),
    ...errorResponses(...AUTH_ERRORS, 400, 404, 409, 413, 422),
  },
});

export const inferAsync = createRoute({
  operationId: "inferAsync",
  method: "post",
  path: "/models/{model_id}/infer-async",
  tags: ["Inference"],
  summary: "Asynchronous inference on an uploaded file: an infer_batch job; read its results with GET /jobs/{job_id}/results",
  middleware: [
    limitBody(DIRECT_UPLOAD_MAX_BYTES + MULTIPART_SLACK_BYTES, inferenceFileTooLarge),
    multipartOnly("Send the file as multipart/form-data with a 'file' part (and optionally 'output_type', 'model_version_id')."),
  ] as const,
  request: {
    params: modelIdParam,
    headers: idempotencyKeyHeader,
    body: { required: true, content: { "multipart/form-data": { schema: inferForm } } },
  },
  responses: {
    202: createdAnswer(JobDetail, "The queued infer_batch job (poll it; its results once it has succeeded)", "The job: `/jobs/{job_id}`"),
    ...errorResponses(...AUTH_ERRORS, 400, 404, 409, 413, 415, 422),
  },
});

const batchBody = z
  .object({
    dataset_id: id
      .optional()
      .openapi({ description: "Predict the latest ready version of this dataset (exactly one of dataset_id, dataset_version_id)" }),
    dataset_version_id: id.optional(),
    output_type: z.enum(OUTPUT_FORMATS).default("json").openapi({ description: "Default format of GET /jobs/{job_id}/results" }),
    model_version_id: versionChoice,
  })
  .strict();

export const inferBatch = createRoute({
  operationId: "inferBatch",
  method: "post",
  path: "/models/{model_id}/infer-batch",
  tags: ["Inference"],
  summary: "Batch inference over a stored dataset version: an infer_batch job; read its results with GET /jobs/{job_id}/results",
  middleware: [jsonBody] as const,
  request: { params: modelIdParam, headers: idempotencyKeyHeader, body: jsonRequest(batchBody) },
  responses: {
    202: createdAnswer(JobDetail, "The queued infer_batch job", "The job: `/jobs/{job_id}`"),
    ...errorResponses(...AUTH_ERRORS, 404, 409, 413, 422),
  },
});
