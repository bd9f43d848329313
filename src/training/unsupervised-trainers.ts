/**
 * The trainer of each non-prediction model type (./run-unsupervised looks them up here). It sits in
 * training, not in ml: the table is the product's list of model types, and it joins engine parts
 * that do not import each other (ml/unsupervised and ml/causal).
 */
import { trainCausalSteps } from "../ml/causal/model";
import { MlInputError } from "../ml/errors";
import type { FitStep, UnsupervisedModel, UnsupervisedTrainOptions } from "../ml/fit/contract";
import type { Frame } from "../ml/frame";
import { trainAnomalySteps } from "../ml/unsupervised/anomaly";
import { trainClusteringSteps } from "../ml/unsupervised/clustering";
import { trainEmbeddingSteps } from "../ml/unsupervised/embedding";
import { trainFactorsSteps } from "../ml/unsupervised/factors";
import type { UnsupervisedModelType } from "../ml/unsupervised/model";
import { trainSearchSteps } from "../ml/unsupervised/search";

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
