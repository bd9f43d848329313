/**
 * A prediction model's training from the frame to the result: the rows prepared (./model), then
 * either the model search (./search-model, the default) or one model with the request's
 * parameters (`params.search` "off", or nothing left to search).
 */
import type { Frame } from "../frame";
import { boostPredictionSteps, type FinetuneStep, type PredictionModelResult, preparePrediction, type TrainPredictionOptions } from "./model";
import { type SearchStep, searchApplies, searchPredictionSteps } from "./search-model";

/**
 * One step of a prediction model's training, as the training job reports it: the boosting rounds
 * (`finetune`) of one model, or the search's steps. Losses: the objective's.
 * @internal exported for test/ml/prediction-steps.test.ts
 */
export type TrainingStep = FinetuneStep | SearchStep;

export function trainPredictionModel(frame: Frame, opts: TrainPredictionOptions): PredictionModelResult {
  const steps = trainPredictionModelSteps(frame, opts);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * Train a prediction model step by step and return the result: {@link preparePrediction}
 * then the search or {@link boostPredictionSteps}. Without `opts.representation` it first builds
 * the shared one, without its encoder (the result's `representation` is then the one to cache).
 * Input errors (MlInputError) are thrown by the first `next()`. On the one-model path
 * `opts.shouldStop` and `opts.onIteration` are consulted after each finetune step (see
 * trainGbdtSteps); during the search they are not: to cancel there, abandon the generator
 * (`return()`).
 * @internal exported for its unit test (test/ml/prediction-steps.test.ts)
 */
export function* trainPredictionModelSteps(frame: Frame, opts: TrainPredictionOptions): Generator<TrainingStep, PredictionModelResult, void> {
  const prepared = preparePrediction(frame, opts);
  if (searchApplies(prepared, opts)) return yield* searchPredictionSteps(prepared, opts);
  return yield* boostPredictionSteps(prepared, opts);
}
