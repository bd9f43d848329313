/**
 * A prediction model's training from the frame to the result: the rows prepared (./model), then
 * either the model search (./search-model, the default) or one model with the request's
 * parameters (`params.search` "off", or nothing left to search).
 */
import type { Frame } from "../frame";
import type { RepresentationStep } from "../representation/representation";
import { boostPredictionSteps, type FinetuneStep, type PredictionModelResult, preparePredictionSteps, type TrainPredictionOptions } from "./model";
import { type SearchStep, searchApplies, searchPredictionSteps } from "./search-model";

/**
 * One step of a prediction model's training, as the training job reports it: the encoder steps
 * of the shared representation (`ssl`, only when it is built here), then the boosting rounds
 * (`finetune`) of one model, or the search's steps. Losses: ssl = reconstruction MSE
 * (../ssl/encoder), finetune = the objective's loss.
 * @internal exported for test/ml/prediction-steps.test.ts
 */
export type TrainingStep = RepresentationStep | FinetuneStep | SearchStep;

export function trainPredictionModel(frame: Frame, opts: TrainPredictionOptions): PredictionModelResult {
  const steps = trainPredictionModelSteps(frame, opts);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * Train a prediction model step by step and return the result: {@link preparePredictionSteps}
 * then the search or {@link boostPredictionSteps}. Without `opts.representation` it first builds
 * the shared one, yielding its `ssl` steps (plannedSslSteps(frame) of them; the result's
 * `representation` is then the one to cache). Input errors (MlInputError) are thrown by the first
 * `next()`, before any ssl step. On the one-model path `opts.shouldStop` and `opts.onIteration`
 * are consulted after each finetune step (see trainGbdtSteps); during the ssl phase and the
 * search they are not (an encoder cut short must not be cached): to cancel there, abandon the
 * generator (`return()`).
 * @internal exported for its unit test (test/ml/prediction-steps.test.ts)
 */
export function* trainPredictionModelSteps(frame: Frame, opts: TrainPredictionOptions): Generator<TrainingStep, PredictionModelResult, void> {
  const prepared = yield* preparePredictionSteps(frame, opts);
  if (searchApplies(prepared, opts)) return yield* searchPredictionSteps(prepared, opts);
  return yield* boostPredictionSteps(prepared, opts);
}
