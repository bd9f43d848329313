/** The trainer of each non-prediction model type (the runner looks them up here). */
import { trainCausalSteps } from "../causal/model";
import { MlInputError } from "../errors";
import type { Frame } from "../frame";
import { trainAnomalySteps } from "./anomaly";
import { trainClusteringSteps } from "./clustering";
import { trainEmbeddingSteps } from "./embedding";
import { trainFactorsSteps } from "./factors";
import type { FitStep, UnsupervisedModel, UnsupervisedModelType, UnsupervisedTrainOptions } from "./model";
import { trainSearchSteps } from "./search";

export type UnsupervisedTrainer = (
  frame: Frame,
  opts: UnsupervisedTrainOptions<Record<string, unknown>>,
) => Generator<FitStep, UnsupervisedModel, void>;

export const UNSUPERVISED_TRAINERS: Record<UnsupervisedModelType, UnsupervisedTrainer> = {
  anomaly: trainAnomalySteps,
  clustering: trainClusteringSteps,
  embedding: trainEmbeddingSteps,
  factors: trainFactorsSteps,
  search: trainSearchSteps,
  causal: (frame, opts) => {
    if (!opts.labelColumn) throw new MlInputError("a causal model needs its outcome column (label_column)");
    return trainCausalSteps(frame, { ...opts, labelColumn: opts.labelColumn });
  },
};
