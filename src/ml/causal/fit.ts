/**
 * The GBDT fits of the causal learner (outcome models per arm, the propensity model, the final
 * effect model), all with one recipe: modest trees, early stopping on a seeded inner 10% split of
 * the fit's own rows (no split below MIN_ROWS_FOR_INNER_SPLIT rows: a fixed number of rounds),
 * bins from the shared representation. Plus the folds of the cross-fitting. Optional per-row
 * weights (the effect model's overlap weights, ./aipw overlapWeights) weight the fit and the
 * inner validation loss that early stopping reads.
 */
import type { FeatureMatrix } from "../featurize";
import type { FeatureBins } from "../gbdt/bins";
import type { GbdtModel, Objective } from "../gbdt/model";
import { predict } from "../gbdt/predict";
import { trainGbdt } from "../gbdt/train";
import { Rng } from "../random";

/**
 * The nuisance models: small trees, early stopping, at most 200 rounds. The leaf hessian floor is
 * pinned to the value the causal benchmark was measured with (the prediction default rose to 0.1):
 * confident propensities have tiny hessians, and tiny causal fits lower minDataInLeaf to 2–5.
 */
const NUISANCE = {
  learningRate: 0.1,
  numLeaves: 15,
  maxRounds: 200,
  earlyStoppingRounds: 15,
  minDataInLeaf: 20,
  lambdaL2: 1,
  minSumHessianInLeaf: 1e-3,
};
/**
 * The effect model on pseudo-outcomes: those are noisy (residuals divided by propensities), so
 * slower learning, bigger leaves and the same early stopping keep it from fitting the noise.
 */
const EFFECT = {
  learningRate: 0.05,
  numLeaves: 15,
  maxRounds: 200,
  earlyStoppingRounds: 15,
  minDataInLeaf: 50,
  lambdaL2: 10,
  minSumHessianInLeaf: 1e-3,
};
/** Rounds without an inner split (tiny fits). */
const FIXED_ROUNDS = 50;
const MIN_ROWS_FOR_INNER_SPLIT = 100;
const INNER_FRACTION = 0.1;

export type FitKind = "nuisance" | "effect";

/** Tree-shape settings a fit may override (./nuisance-settings picks among a few). */
export interface TreeSettings {
  learningRate: number;
  numLeaves: number;
  minDataInLeaf: number;
  lambdaL2: number;
}

export interface FitInput {
  m: FeatureMatrix;
  categorical: boolean[];
  featureNames: string[];
  bins: FeatureBins[];
}

/** Fit on `rows` (frame rows) with `label` (and optional fitting `weight`) per frame row. */
export function fitGbdt(
  input: FitInput,
  label: Float64Array,
  rows: Int32Array,
  objective: Objective,
  opts: { kind: FitKind; seed: number; numClasses?: number; weight?: Float64Array; settings?: TreeSettings },
): GbdtModel {
  const base = { ...(opts.kind === "effect" ? EFFECT : NUISANCE), ...opts.settings };
  const n = rows.length;
  // tiny fits: leaves of 20 rows would forbid any split
  const minDataInLeaf = Math.min(base.minDataInLeaf, Math.max(2, Math.floor(n / 20)));
  let train = rows;
  let val = new Int32Array(0);
  if (n >= MIN_ROWS_FOR_INNER_SPLIT) {
    const shuffled = Int32Array.from(rows);
    new Rng(opts.seed ^ 0x1a2b3c).shuffle(shuffled);
    const nv = Math.round(n * INNER_FRACTION);
    val = shuffled.slice(0, nv).sort();
    train = shuffled.slice(nv).sort();
  }
  const res = trainGbdt({
    data: input.m.data,
    numRows: input.m.numRows,
    numFeatures: input.m.numFeatures,
    categorical: input.categorical,
    featureNames: input.featureNames,
    label,
    weight: opts.weight,
    trainRows: train,
    valRows: val,
    bins: input.bins,
    params: {
      ...base,
      maxRounds: val.length > 0 ? base.maxRounds : FIXED_ROUNDS,
      objective,
      numClasses: opts.numClasses ?? 2,
      minDataInLeaf,
      minDataPerGroup: Math.min(20, minDataInLeaf),
      seed: opts.seed,
    },
  });
  return res.model;
}

/** Predictions (regression value, binary probability, multiclass probabilities) on `rows`. */
export function predictRows(model: GbdtModel, m: FeatureMatrix, rows: Int32Array): Float64Array {
  const F = m.numFeatures;
  const sub = new Float32Array(rows.length * F);
  for (let i = 0; i < rows.length; i++) sub.set(m.data.subarray(rows[i] * F, rows[i] * F + F), i * F);
  return predict(model, sub, rows.length);
}

/** Fold of each listed row (index into `rows`), stratified by arm: each arm's rows shuffled and dealt round-robin. */
export function assignFolds(rows: Int32Array, arm: Int32Array, arms: number, folds: number, seed: number): Int32Array {
  const fold = new Int32Array(rows.length);
  const rng = new Rng(seed ^ 0xf01d);
  let offset = 0;
  for (let k = 0; k < arms; k++) {
    const idx: number[] = [];
    for (let j = 0; j < rows.length; j++) if (arm[rows[j]] === k) idx.push(j);
    const a = Int32Array.from(idx);
    rng.shuffle(a);
    // the offset carries on from arm to arm so small arms do not all start in fold 0
    for (let i = 0; i < a.length; i++) fold[a[i]] = (offset + i) % folds;
    offset += a.length;
  }
  return fold;
}
