import { type IsolationForest, type IsolationForestParams, trainIsolationForestSteps } from "../../../src/ml/iforest/forest";

/** Trains an isolation forest in one call (the service drives the steps, reporting progress). */
export function trainIsolationForest(data: Float32Array, numRows: number, numFeatures: number, p: IsolationForestParams): IsolationForest {
  const steps = trainIsolationForestSteps(data, numRows, numFeatures, p);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}
