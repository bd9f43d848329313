import { z } from "zod";

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
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .optional(),
    validation_fraction: z.number().min(0).lt(1).optional(),
  })
  .strict();
export type PredictionParamsInput = z.infer<typeof predictionParams>;
