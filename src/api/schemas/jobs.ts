/**
 * Response schemas of the job routes, matching `presentJob` in `src/jobs/presenter.ts` and the
 * cancel and retry answers of `src/jobs/service.ts`.
 */
import { z } from "@hono/zod-openapi";
import { JOB_STATUSES, JOB_TYPES } from "../../jobs/types";
import { MODEL_TYPES } from "../../model-types/registry";
import { DatasetVersionRef, ModelVersionRef, nextCursor, orNull } from "./common";
import { valueList } from "./value-list";

const timestamp = z.iso.datetime();
const uuid = z.uuid();

const JOB_STATUS_DESCRIPTION = valueList(JOB_STATUSES, {
  serialComma: true,
  notes: { waiting_for_upload: "dataset_ingest jobs of a signed-URL upload until it is completed" },
});

/** A version reference inside `resources`: null when the version is unknown or deleted. */
const datasetRef = orNull(DatasetVersionRef);
const modelRef = orNull(ModelVersionRef);

/** Typed `resources` of a job, one shape per job type (discriminator `type`). */
const DatasetIngestResources = z.object({ type: z.literal("dataset_ingest"), dataset: datasetRef }).openapi("DatasetIngestResources");
const TrainResources = z.object({ type: z.literal("train"), model: modelRef, dataset: datasetRef }).openapi("TrainResources");
const InferSyncResources = z.object({ type: z.literal("infer_sync"), model: modelRef }).openapi("InferSyncResources");
const InferBatchResources = z
  .object({
    type: z.literal("infer_batch"),
    model: modelRef,
    dataset: datasetRef.openapi({ description: "Null when the job ran on an uploaded file" }),
  })
  .openapi("InferBatchResources");
const ModelExplainResources = z.object({ type: z.literal("model_explain"), model: modelRef, dataset: datasetRef }).openapi("ModelExplainResources");

const JobResources = z
  .discriminatedUnion("type", [DatasetIngestResources, TrainResources, InferSyncResources, InferBatchResources, ModelExplainResources])
  .openapi("JobResources", {
    description: "Versions the job works on. `type` is the job type, except `model_explain` for an `infer_explain` job",
  });

/** One point of a training job's loss curve. */
const MetricPoint = z
  .object({
    step: z.number().int(),
    train_loss: z.number().nullable().openapi({ description: "Average training loss over the interval ending at `step`" }),
    val_loss: z.number().nullable().openapi({ description: "Validation loss; null when no validation gate fired at this step" }),
  })
  .openapi("MetricPoint");

/** One explained row of an inference job. */
const ExplanationRow = z
  .object({
    id: z.string(),
    explanation_text: z.string().nullable().openapi({ description: "One or two plain sentences" }),
    explanation_label: z.string().nullable().openapi({ description: "A short tag of the main driver" }),
    explanation_gloss: z.string().nullable().openapi({ description: "What the numbers mean: their scale and baseline" }),
    feature_contributions: z.array(z.record(z.string(), z.unknown())).nullable().openapi({
      description:
        "Exact TreeSHAP per input column ({column, value, contribution}), largest magnitude first; with base_value they add to the model's raw output",
    }),
    base_value: z.number().nullable().optional(),
    output_scale: z.string().nullable().optional(),
    prediction: z
      .union([z.string(), z.number(), z.boolean()])
      .nullable()
      .optional()
      .openapi({ description: "The model's answer for the row: a class, a value, or (an anomaly model) whether the row is an anomaly" }),
    probability: z.number().nullable().optional(),
    prediction_flip: z.record(z.string(), z.unknown()).nullable().openapi({
      description:
        "The smallest one-column change that changes the prediction ({column, from, to, new_prediction, new_probability}); null with flip_reason when none exists",
    }),
    flip_reason: z.string().nullable().optional(),
  })
  .openapi("ExplanationRow");

/** Who created the job. */
const JobCreator = z
  .object({
    principal_type: z.string().openapi({ description: "e.g. `api_key`" }),
    user_id: z.string().nullable(),
    api_key_id: z.string().nullable(),
  })
  .openapi("JobCreator");

const freeForm = z.record(z.string(), z.unknown()).nullable();
const trainingOnly = "Train jobs only; null for other types";

/** GET /jobs/{job_id}; also the items of GET /jobs. */
export const JobDetail = z
  .object({
    id: z.string().openapi({ description: "Public job id, `job_` followed by 32 hex digits (paths take it or the UUID form)" }),
    type: z.enum(JOB_TYPES),
    status: z.enum(JOB_STATUSES).openapi({ description: JOB_STATUS_DESCRIPTION }),
    created_at: timestamp,
    started_at: timestamp.nullable(),
    finished_at: timestamp.nullable(),
    created_by: orNull(JobCreator),
    actor_name: z.string().nullable().openapi({ description: "Display name of the creator (user display name, or API key name)" }),
    model_type: z.enum(MODEL_TYPES).nullable(),
    model_id: uuid.nullable(),
    dataset_id: uuid.nullable(),
    dataset_name: z.string().nullable().openapi({ description: "Name of the dataset when the job was created" }),
    input_filename: z.string().nullable().openapi({ description: "Original name of the uploaded file, for file-backed jobs" }),
    parent_job_id: z.string().nullable().openapi({ description: "Public id of the parent of a compound chain job" }),
    input: freeForm.openapi({ description: "Free-form parameters of the job" }),
    output: freeForm.openapi({ description: "Free-form result summary of the job" }),
    resources: orNull(JobResources),
    explanations: z.array(ExplanationRow).nullable().openapi({ description: "Inline explanations of a succeeded explanation job; else null" }),
    error_message: z.string().nullable().openapi({ description: "Human-readable reason, when failed" }),
    service_runtime_version: z.string().nullable().openapi({ description: "ML runtime version used" }),
    credits_consumed: z.number().nullable().openapi({ description: "Credits charged for the job; null until finalized" }),
    progress: z.number().min(0).max(100).nullable().openapi({ description: "Percent done, 0 to 100" }),
    current_step: z
      .number()
      .int()
      .nullable()
      .openapi({ description: `Self-supervised plus finetune steps done. ${trainingOnly}` }),
    total_steps: z
      .number()
      .int()
      .nullable()
      .openapi({ description: `Self-supervised plus finetune steps planned. ${trainingOnly}` }),
    current_phase: z
      .enum(["ssl", "finetune"])
      .nullable()
      .openapi({
        description: `Self-supervised (\`ssl\`) or supervised (\`finetune\`) phase. ${trainingOnly}, and null for types without a training loop`,
      }),
    metrics_history: z
      .array(MetricPoint)
      .nullable()
      .openapi({
        description: `Loss curve, oldest first, capped at 200 points (downsampled in place by dropping every other point). ${trainingOnly}, and null before the first point is reported`,
      }),
  })
  .openapi("JobDetail", {
    example: {
      id: "job_9c8b7a6f5e4d4c3ba2f10e9d8c7b6a5f",
      type: "train",
      status: "running",
      created_at: "2025-03-02T09:20:41.011Z",
      started_at: "2025-03-02T09:20:43.270Z",
      finished_at: null,
      created_by: { principal_type: "api_key", user_id: "0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a", api_key_id: "7e6d5c4b-3a29-4180-9f8e-7d6c5b4a3928" },
      actor_name: "ci-pipeline",
      model_type: "prediction",
      model_id: "5b2e8f1a-0c3d-4e6f-8a9b-7c1d2e3f4a5b",
      dataset_id: "3f1c2a9e-7b4d-4c1e-9a2f-5d6e7f8a9b0c",
      dataset_name: "customer_churn",
      input_filename: null,
      parent_job_id: null,
      input: { model_name: "churn-predictor", version_number: 1, model_type: "prediction", label_column: "churned", input_columns: null, params: {} },
      output: null,
      resources: {
        type: "train",
        model: { id: "5b2e8f1a-0c3d-4e6f-8a9b-7c1d2e3f4a5b", version_id: "e4d3c2b1-a0f9-4e8d-b7c6-5a4b3c2d1e0f", version_number: 1 },
        dataset: {
          id: "3f1c2a9e-7b4d-4c1e-9a2f-5d6e7f8a9b0c",
          version_id: "8a7b6c5d-4e3f-4a1b-9c2d-1e0f2a3b4c5d",
          version_number: 1,
          archived: false,
        },
      },
      explanations: null,
      error_message: null,
      service_runtime_version: "0.1.0",
      credits_consumed: null,
      progress: 62.5,
      current_step: 250,
      total_steps: 400,
      current_phase: "finetune",
      metrics_history: [
        { step: 200, train_loss: 0.4123, val_loss: 0.4391 },
        { step: 250, train_loss: 0.3876, val_loss: 0.4217 },
      ],
    },
  });

/** GET /jobs: newest first. */
export const JobPage = z.object({ items: z.array(JobDetail), next_cursor: nextCursor }).openapi("JobPage");

/** POST /jobs/{job_id}/cancel. */
export const JobCanceled = z
  .object({
    job_id: uuid.openapi({ description: "The job (UUID form)" }),
    status: z.enum(JOB_STATUSES).openapi({ description: "`canceled`; or, for a job that had already ended, how it ended" }),
  })
  .openapi("JobCanceled");

/** POST /jobs/{job_id}/retry: the new job. */
export const JobRetried = z
  .object({
    job_id: uuid.openapi({ description: "The new job (UUID form)" }),
    status: z.enum(JOB_STATUSES).openapi({ description: "Status of the new job; `queued` at first" }),
  })
  .openapi("JobRetried");

/** GET /jobs/{job_id}/results?format=json. */
export const JobResults = z
  .object({
    job_id: z.string(),
    model_id: z.string().nullable(),
    model_version_id: z.string().nullable(),
    total_rows: z.number().int(),
    columns: z.array(z.string()),
    data: z
      .record(z.string(), z.array(z.unknown()))
      .openapi({ description: "Column name → one value per row of this page, the same columns as synchronous inference" }),
    next_cursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next page; null on the last page" }),
  })
  .openapi("JobResults");
