/**
 * Response schemas of the model routes, matching `src/models/presenter.ts`, `src/models/train.ts`
 * and the synchronous inference answer built in `src/api/routes/models.ts`.
 */
import { z } from "@hono/zod-openapi";
import { MODEL_VERSION_STATUSES } from "../../db/version-statuses";
import { MODEL_TYPES } from "../../model-types/registry";
import { MODEL_STATUSES } from "../../models/status";
import { ModelVersionRef, nextCursor, orNull } from "./common";
import { answerColumnsDescription, metricsDescription, shownLabelDescription, summaryDescription } from "./model-type-docs";
import { valueList } from "./value-list";

const timestamp = z.iso.datetime();
const uuid = z.uuid();
const VERSION_STATUS = `Model version status: ${valueList(MODEL_VERSION_STATUSES)}`;

/** Validation metrics of one version: metric name → value (null when undefined for the data). */
const ModelMetrics = z.record(z.string(), z.number().nullable()).openapi("ModelMetrics", { description: metricsDescription() });

/** What a trained version shows about itself beyond metrics. */
const ModelSummary = z.record(z.string(), z.unknown()).nullable().openapi("ModelSummary", { description: summaryDescription() });

/** The model's current version, as summarised in the model. */
const ModelCurrentVersion = z
  .object({
    version_id: uuid,
    version: z.number().int(),
    status: z.string().openapi({ description: VERSION_STATUS }),
    metrics: ModelMetrics,
    summary: ModelSummary,
  })
  .openapi("ModelCurrentVersion");

const MODEL_ID = "5b2e8f1a-0c3d-4e6f-8a9b-7c1d2e3f4a5b";
const MODEL_VERSION_ID = "e4d3c2b1-a0f9-4e8d-b7c6-5a4b3c2d1e0f";
const DATASET_ID = "3f1c2a9e-7b4d-4c1e-9a2f-5d6e7f8a9b0c";
const churnMetrics = { accuracy: 0.874, log_loss: 0.301, roc_auc: 0.912, f1: 0.641 };

/** Model detail (GET /models/{model_id}); list items have the same shape. */
export const Model = z
  .object({
    model_id: uuid,
    model_name: z.string(),
    description: z.string().nullable(),
    model_type: z.enum(MODEL_TYPES),
    status: z.enum(MODEL_STATUSES).openapi({
      description: "The current version's status (a canceled version reads as `failed`); `queued` while the model has no version",
    }),
    current_metrics: ModelMetrics.openapi({ description: "Metrics of the current version (`{}` until it is trained)" }),
    current_version: orNull(ModelCurrentVersion).openapi({
      description: "The latest version that was not canceled (else the latest); null when the model has no version",
    }),
    training_dataset_id: uuid.nullable().openapi({ description: "Dataset the current version was trained on" }),
    training_dataset_name: z.string().nullable().openapi({ description: "Its name; null when the dataset no longer exists" }),
    label_column: z.string().optional().openapi({ description: shownLabelDescription() }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi("Model", {
    example: {
      model_id: MODEL_ID,
      model_name: "churn-predictor",
      description: "Predicts churn from age, city and income",
      model_type: "prediction",
      status: "ready",
      current_metrics: churnMetrics,
      current_version: { version_id: MODEL_VERSION_ID, version: 1, status: "ready", metrics: churnMetrics, summary: null },
      training_dataset_id: DATASET_ID,
      training_dataset_name: "customer_churn",
      label_column: "churned",
      created_at: "2025-03-02T09:20:41.003Z",
      updated_at: "2025-03-02T09:20:41.003Z",
    },
  });

/** A model version (GET /models/{model_id}/versions item). */
export const ModelVersion = z
  .object({
    model_version_id: uuid,
    model_id: uuid,
    version: z.number().int(),
    status: z.string().openapi({ description: VERSION_STATUS }),
    created_at: timestamp,
    updated_at: timestamp,
    dataset_id: uuid.openapi({ description: "Dataset the version is trained on" }),
    dataset_version_id: uuid,
    metrics: ModelMetrics,
    summary: ModelSummary,
    input_columns: z.array(z.string()).nullable().openapi({ description: "Feature columns; null: every column but the label" }),
    params: z.record(z.string(), z.unknown()).openapi({ description: "Training parameters as given (engine defaults apply to the others)" }),
    error_message: z.string().nullable().openapi({ description: "Why training failed" }),
  })
  .openapi("ModelVersion");

/** GET /models (and GET /datasets/{dataset_id}/models): newest first. */
export const ModelPage = z.object({ items: z.array(Model), next_cursor: nextCursor }).openapi("ModelPage");

/** GET /models/{model_id}/versions: newest first. */
export const ModelVersionList = z.object({ items: z.array(ModelVersion), next_cursor: nextCursor }).openapi("ModelVersionList");

/** POST /models/train and POST /models/{model_id}/retrain. */
export const TrainingStarted = z
  .object({
    model: ModelVersionRef.openapi({ description: "The model and the version being trained" }),
    job_id: uuid.openapi({ description: "Id of the train job (UUID form; poll `GET /jobs/{job_id}`)" }),
    status: z.string().openapi({ description: "Status of the train job; `queued` at first" }),
    service_runtime_version: z.string().openapi({ description: "ML runtime version that trains the model" }),
  })
  .openapi("TrainingStarted", {
    example: {
      model: { id: MODEL_ID, version_id: MODEL_VERSION_ID, version_number: 1 },
      job_id: "9c8b7a6f-5e4d-4c3b-a2f1-0e9d8c7b6a5f",
      status: "queued",
      service_runtime_version: "0.1.0",
    },
  });

/** One output cell of inference: a value, or a list (an embedding, a row's neighbours). */
const Cell = z.union([z.string(), z.number(), z.boolean(), z.array(z.union([z.string(), z.number()]).nullable())]).nullable();

/** POST /models/{model_id}/infer with `output_type=json`. */
export const SyncInferenceResult = z
  .object({
    job_id: uuid.openapi({ description: "Id of the infer_sync job recorded for this call" }),
    status: z.literal("succeeded"),
    latency_ms: z.number().int().openapi({ description: "Server-side time of the call, in milliseconds" }),
    model_id: uuid,
    model_name: z.string(),
    model_type: z.enum(MODEL_TYPES),
    model_version_id: uuid.openapi({ description: "The version that predicted (the requested one, else the latest ready one)" }),
    data: z.record(z.string(), z.array(Cell)).openapi({ description: answerColumnsDescription() }),
  })
  .openapi("SyncInferenceResult", {
    example: {
      job_id: "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
      status: "succeeded",
      latency_ms: 184,
      model_id: MODEL_ID,
      model_name: "churn-predictor",
      model_type: "prediction",
      model_version_id: MODEL_VERSION_ID,
      data: {
        id: [0, 1, 2],
        prediction: ["false", "true", "false"],
        prediction_prob: [0.92, 0.71, 0.77],
        prob_false: [0.92, 0.29, 0.77],
        prob_true: [0.08, 0.71, 0.23],
      },
    },
  });

const num = z.number().nullable();

/** An average effect over a set of rows (every field of one treated arm's estimate, and per arm). */
const effectFields = {
  ate: num.openapi({
    description: "Average treatment effect (treatment vs control); null when the treatment has several treated arms (see `estimates`)",
  }),
  std_error: num.openapi({ description: "Its standard error (influence function); null for mean_predicted_effect" }),
  ci_low: num.openapi({ description: "Lower bound of the 95% interval" }),
  ci_high: num.openapi({ description: "Upper bound of the 95% interval" }),
  n: z.number().int().openapi({ description: "Rows in the estimate" }),
  n_treated: z.number().int().nullable().openapi({ description: "Treated rows among them (null when the data has no treatment column)" }),
  n_control: z.number().int().nullable(),
  estimates: z
    .array(
      z.object({
        arm: z.string(),
        ate: num,
        std_error: num,
        ci_low: num,
        ci_high: num,
        n: z.number().int(),
        n_treated: z.number().int().nullable(),
      }),
    )
    .openapi({ description: "One estimate per treated arm against the control" }),
};

/** POST /models/{model_id}/estimate-causal-effect. */
export const CausalEffect = z
  .object({
    model_id: uuid,
    model_version_id: uuid,
    method: z.enum(["aipw_cross_fitted", "aipw", "mean_predicted_effect"]).openapi({
      description:
        "aipw_cross_fitted: over the training rows; aipw: over other rows with treatment and outcome; mean_predicted_effect: over rows without them (no interval)",
    }),
    method_description: z.string(),
    data: z.object({
      source: z.enum(["training_data", "dataset_version", "file"]),
      dataset_id: z.string().nullable(),
      dataset_version_id: z.string().nullable(),
      filename: z.string().nullable(),
    }),
    treatment_column: z.string(),
    outcome_column: z.string(),
    control_value: z.string(),
    treated_arms: z.array(z.string()),
    effect_scale: z.string().openapi({ description: "Units of the outcome, or the probability of its positive value" }),
    confidence: z.number().nullable().openapi({ description: "0.95 (null without an interval)" }),
    ...effectFields,
    group_by: z.string().nullable(),
    groups: z
      .array(
        z.object({ value: z.string().nullable().openapi({ description: "The group's value (null: rows where it is missing)" }), ...effectFields }),
      )
      .nullable()
      .openapi({ description: "Per value of group_by, largest group first; null without group_by" }),
    warnings: z.array(z.string()),
  })
  .openapi("CausalEffect");
