/**
 * The features plus one last column carrying the treatment, for the models that see it (the
 * S-learner, the pooled base of the outcome models): a categorical column of arm codes 0..K−1
 * (missing arm: NaN), with bins that give every arm its own bin, so trees can split it like any
 * categorical feature and ./specialize can resolve those splits for one arm.
 */
import type { FitInput } from "./fit";

export function withArmColumn(input: FitInput, armCode: (row: number) => number, K: number): FitInput {
  const { m } = input;
  const F = m.numFeatures;
  const data = new Float32Array(m.numRows * (F + 1));
  for (let r = 0; r < m.numRows; r++) {
    data.set(m.data.subarray(r * F, r * F + F), r * (F + 1));
    const k = armCode(r);
    data[r * (F + 1) + F] = k < 0 ? NaN : k;
  }
  return {
    m: { ...m, data, numFeatures: F + 1 },
    categorical: [...input.categorical, true],
    featureNames: [...input.featureNames, "(treatment)"],
    bins: [...input.bins, { kind: "categorical", codes: Array.from({ length: K }, (_, k) => k) }],
  };
}
