/** The trainer of each non-prediction model type (the runner looks them up here). */
import type { Frame } from "../frame";
import { trainEmbeddingSteps } from "./embedding";
import { trainFactorsSteps } from "./factors";
import type { FitStep, UnsupervisedModel, UnsupervisedModelType, UnsupervisedTrainOptions } from "./model";

export type UnsupervisedTrainer = (
  frame: Frame,
  opts: UnsupervisedTrainOptions<Record<string, unknown>>,
) => Generator<FitStep, UnsupervisedModel, void>;

export const UNSUPERVISED_TRAINERS: Partial<Record<UnsupervisedModelType, UnsupervisedTrainer>> = {
  embedding: trainEmbeddingSteps,
  factors: trainFactorsSteps,
};
