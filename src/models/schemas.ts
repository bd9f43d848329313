import { z } from "zod";
import { pageQuery } from "../api/pagination";

export const MODEL_TYPES = ["prediction", "anomaly", "embedding", "clustering", "factors", "search", "causal"] as const;
export type ModelType = (typeof MODEL_TYPES)[number];
/** Model types this version of the service can train; the others answer 422 at request time. */
export const TRAINABLE_MODEL_TYPES: readonly ModelType[] = ["prediction"];

export const MODEL_STATUSES = ["queued", "processing", "ready", "failed"] as const;

/**
 * Parameters of a prediction model. Unknown keys are refused (a typo must not be silently
 * ignored); every key is optional and the engine's defaults apply.
 */
export const predictionParams = z
  .object({
    task: z.enum(["classification", "regression"]).optional(),
    learning_rate: z.number().gt(0).lte(1).optional(),
    num_leaves: z.number().int().min(2).max(4096).optional(),
    max_depth: z.number().int().min(-1).max(64).optional(),
    max_rounds: z.number().int().min(1).max(10_000).optional(),
    early_stopping_rounds: z.number().int().min(0).max(10_000).optional(),
    min_data_in_leaf: z.number().int().min(1).optional(),
    l2: z.number().min(0).optional(),
    subsample: z.number().gt(0).lte(1).optional(),
    feature_fraction: z.number().gt(0).lte(1).optional(),
    seed: z.number().int().min(0).max(2 ** 31 - 1).optional(),
    validation_fraction: z.number().min(0).lt(1).optional(),
  })
  .strict();
export type PredictionParamsInput = z.infer<typeof predictionParams>;

const id = z.string().min(1).max(100);

export const trainBody = z
  .object({
    model_name: z.string().trim().min(1).max(200),
    model_type: z.enum(MODEL_TYPES),
    dataset_id: id.optional(),
    dataset_version_id: id.optional(),
    label_column: z.string().min(1).max(500).optional(),
    input_columns: z.array(z.string().min(1).max(500)).min(1).max(10_000).optional(),
    description: z.string().max(2000).optional(),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type TrainBody = z.infer<typeof trainBody>;

export const retrainBody = z
  .object({
    dataset_id: id.optional(),
    dataset_version_id: id.optional(),
  })
  .strict();
export type RetrainBody = z.infer<typeof retrainBody>;

export const listModelsQuery = z.object({
  ...pageQuery,
  model_type: z.enum(MODEL_TYPES).optional(),
  dataset_id: z.string().min(1).optional(),
  status: z.enum(MODEL_STATUSES).optional(),
});

export const artifactQuery = z.object({
  part: z.enum(["onnx", "featurizer"]).default("onnx"),
});

export const INFER_OUTPUT_TYPES = ["json", "csv", "parquet"] as const;
export const inferForm = z.object({
  output_type: z.enum(INFER_OUTPUT_TYPES).default("json"),
  model_version_id: z.string().min(1).optional(),
});
