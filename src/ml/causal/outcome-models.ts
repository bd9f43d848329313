/**
 * The outcome models μ_k (one per arm) of a set of rows. Numeric outcome: a pooled model on every
 * arm's rows with the treatment as a feature (./treatment-feature), resolved for arm k
 * (./specialize), plus a model of arm k's residuals on arm k's rows, served as one ensemble
 * μ_k = pooled(x, k) + g_k(x) (../gbdt/blend). Why: under poor overlap an arm is nearly absent where
 * the propensity is extreme, and a tree model of that arm alone extrapolates flat there, missing
 * the outcome's trend along the confounder; the AIPW correction, with its clipped propensities,
 * undoes only part of that (bench/causal/RESULTS.md: bias +0.13, coverage 0.83 at 1000 rows with
 * P(T=1) = sigmoid(6·x1)). The pooled model learns the trend from both arms and the arm offset from
 * its treatment splits, so what is extrapolated is only the arm's remaining deviation (bias −0.03,
 * coverage 0.90 on the same seeds). A pooled model without the treatment feature plus per-arm
 * residuals was tried and overshot (−0.09): its residuals carry the arm's share e(x)·τ, which
 * varies along the confounder and is extrapolated flat again.
 * Binary outcome: one binary model per arm (a sum of a pooled and a residual model's probabilities
 * would leave the probability scale).
 */
import { blendGbdtModels } from "../gbdt/blend";
import type { GbdtModel, Objective } from "../gbdt/model";
import { type FitInput, fitGbdt, predictRows, type TreeSettings } from "./fit";
import { fixLastFeature } from "./specialize";
import { withArmColumn } from "./treatment-feature";

/** GBDT fits of one set of outcome models. */
export function outcomeFitCount(K: number, outcome: Objective): number {
  return outcome === "regression" ? K + 1 : K;
}

/** μ_k for every arm k, fit on `train` (frame rows); yields once per fit. */
export function* fitOutcomeModels(
  input: FitInput,
  y: Float64Array,
  arm: Int32Array,
  train: Int32Array,
  K: number,
  opts: { outcome: Objective; seed: number; settings?: TreeSettings },
): Generator<void, GbdtModel[], void> {
  const fitOn = (label: Float64Array, rows: Int32Array, seed: number) =>
    fitGbdt(input, label, rows, opts.outcome, { kind: "nuisance", seed, settings: opts.settings });
  const models: GbdtModel[] = [];
  if (opts.outcome !== "regression") {
    for (let k = 0; k < K; k++) {
      models.push(
        fitOn(
          y,
          train.filter((r) => arm[r] === k),
          opts.seed + k,
        ),
      );
      yield;
    }
    return models;
  }
  const pooledInput = withArmColumn(input, (r) => arm[r], K);
  const pooled = fitGbdt(pooledInput, y, train, "regression", { kind: "nuisance", seed: opts.seed + K, settings: opts.settings });
  yield;
  for (let k = 0; k < K; k++) {
    const base = fixLastFeature(pooled, k);
    const own = train.filter((r) => arm[r] === k);
    const fitted = predictRows(base, input.m, own);
    const residual = new Float64Array(y.length).fill(NaN);
    own.forEach((r, i) => (residual[r] = y[r] - fitted[i]));
    models.push(
      blendGbdtModels([
        { model: base, weight: 1 },
        { model: fitOn(residual, own, opts.seed + k), weight: 1 },
      ]),
    );
    yield;
  }
  return models;
}
