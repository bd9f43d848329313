import { z } from "zod";
import { COLUMN_NAME_MAX_CHARS } from "../core/limits";
import { MAX_TIME_BUDGET_S } from "../ml/prediction/model";
import type { ModelType } from "./types";

/**
 * Parameters of each model type. Unknown keys are refused (a typo must not be silently ignored);
 * every key is optional and the engine's defaults apply. Ranges are what a request can be judged
 * on; what only the data shows (n_clusters above the distinct rows...) fails the training job.
 */
const seed = z
  .number()
  .int()
  .min(0)
  .max(2 ** 31 - 1)
  .optional();

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
    seed,
    validation_fraction: z.number().min(0).lt(1).optional(),
    time_budget_s: z
      .number()
      .gt(0)
      .lte(MAX_TIME_BUDGET_S)
      .optional()
      .describe(
        `wall-clock seconds boosting may take (default 300, at most ${MAX_TIME_BUDGET_S}); the job output's stop_reason says time_budget when it ran out`,
      ),
  })
  .strict();
export type PredictionParamsInput = z.infer<typeof predictionParams>;

export const anomalyParams = z
  .object({
    n_estimators: z.number().int().min(1).max(1000).optional(),
    max_samples: z.number().int().min(2).max(65_536).optional(),
    contamination: z.number().gt(0).lte(0.5).optional(),
    method: z.enum(["isolation_forest", "blended"]).optional(),
    seed,
  })
  .strict();

export const embeddingParams = z
  .object({
    dimensions: z.number().int().min(2).max(256).optional(),
    seed,
  })
  .strict();

export const clusteringParams = z
  .object({
    n_clusters: z.number().int().min(2).max(100).optional(),
    space: z.enum(["features", "embedding"]).optional(),
    n_init: z.number().int().min(1).max(100).optional(),
    max_iter: z.number().int().min(1).max(10_000).optional(),
    seed,
  })
  .strict();

export const factorsParams = z
  .object({
    n_components: z.number().int().min(1).max(100).optional(),
    rotation: z.enum(["none", "varimax"]).optional(),
    seed,
  })
  .strict();

export const searchParams = z
  .object({
    k: z.number().int().min(1).max(100).optional(),
    space: z.enum(["embedding", "features"]).optional(),
    index: z.enum(["auto", "exact", "ivf"]).optional(),
    seed,
  })
  .strict();

export const causalParams = z
  .object({
    action_column: z.string().min(1).max(COLUMN_NAME_MAX_CHARS).optional(),
    control_value: z
      .union([z.string().min(1).max(COLUMN_NAME_MAX_CHARS), z.number(), z.boolean()])
      .transform(String)
      .optional(),
    propensity_clip: z
      .tuple([z.number().gt(0).lt(0.5), z.number().gt(0.5).lt(1)])
      .optional()
      .describe("[low, high]: propensities are clipped to this range"),
    folds: z.number().int().min(2).max(20).optional(),
    seed,
  })
  .strict();

export const PARAMS_BY_TYPE: Record<ModelType, z.ZodType<Record<string, unknown>>> = {
  prediction: predictionParams,
  anomaly: anomalyParams,
  embedding: embeddingParams,
  clustering: clusteringParams,
  factors: factorsParams,
  search: searchParams,
  causal: causalParams,
};
