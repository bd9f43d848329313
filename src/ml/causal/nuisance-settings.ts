/**
 * The nuisance models' tree settings, chosen per dataset among a few: the outcome models and the
 * propensity model are each fit with every setting on the rows outside the first cross-fitting
 * fold and scored on that fold (squared error, or log loss for a binary outcome and for the
 * propensity); the lowest held-out loss wins. Why one fold and not all: the choice only needs a
 * ranking, and screening on one fold costs (settings × (arms + 1)) fits instead of five times
 * that; the cross-fitting then runs once with the winners. Early stopping already picks the
 * number of rounds, so the settings differ in tree shape only.
 */
import type { Objective } from "../gbdt/model";
import { assignFolds, type FitInput, fitGbdt, predictRows, type TreeSettings } from "./fit";
import { fitOutcomeModels, outcomeFitCount } from "./outcome-models";

export const NUISANCE_SETTINGS: Record<string, TreeSettings> = {
  // the recipe the causal benchmark was first measured with
  default: { learningRate: 0.1, numLeaves: 15, minDataInLeaf: 20, lambdaL2: 1 },
  // near-additive stumps-and-pairs: small tables and smooth surfaces (e.g. IHDP's 747 rows)
  small_trees: { learningRate: 0.05, numLeaves: 4, minDataInLeaf: 10, lambdaL2: 1 },
  // deeper interactions for large tables
  large_trees: { learningRate: 0.1, numLeaves: 31, minDataInLeaf: 10, lambdaL2: 1 },
};
const NAMES = Object.keys(NUISANCE_SETTINGS);

export interface NuisanceChoice {
  outcome: string;
  propensity: string;
  /** Held-out loss of each setting (outcome: mean over the arms). */
  outcomeLoss: Record<string, number>;
  propensityLoss: Record<string, number>;
}

export function nuisanceScreenCount(K: number, outcome: Objective): number {
  return NAMES.length * (outcomeFitCount(K, outcome) + 1);
}

const EPS = 1e-12;
const logLoss = (p: number, y: number) => -Math.log(Math.max(EPS, y === 1 ? p : 1 - p));

/** Screens NUISANCE_SETTINGS on fold 0 of the cross-fitting's folds; yields once per fit. */
export function* chooseNuisanceSettings(
  input: FitInput,
  y: Float64Array,
  arm: Int32Array,
  rows: Int32Array,
  K: number,
  opts: { folds: number; seed: number; outcome: Objective },
): Generator<void, NuisanceChoice, void> {
  const fold = assignFolds(rows, arm, K, opts.folds, opts.seed);
  const held = rows.filter((_, j) => fold[j] === 0);
  const train = rows.filter((_, j) => fold[j] !== 0);
  const armLabel = Float64Array.from(arm, (a) => (a < 0 ? NaN : a));
  const outcomeLoss: Record<string, number> = {};
  const propensityLoss: Record<string, number> = {};
  for (const name of NAMES) {
    const settings = NUISANCE_SETTINGS[name];
    let armLosses = 0;
    const models = yield* fitOutcomeModels(input, y, arm, train, K, { outcome: opts.outcome, seed: opts.seed + 31, settings });
    for (let k = 0; k < K; k++) {
      const heldK = held.filter((r) => arm[r] === k);
      const p = predictRows(models[k], input.m, heldK);
      let s = 0;
      for (let i = 0; i < heldK.length; i++) s += opts.outcome === "binary" ? logLoss(p[i], y[heldK[i]]) : (p[i] - y[heldK[i]]) ** 2;
      armLosses += s / Math.max(1, heldK.length);
    }
    outcomeLoss[name] = armLosses / K;
    const objective: Objective = K === 2 ? "binary" : "multiclass";
    const prop = fitGbdt(input, armLabel, train, objective, { kind: "nuisance", seed: opts.seed + 37, numClasses: K, settings });
    const p = predictRows(prop, input.m, held);
    let s = 0;
    for (let i = 0; i < held.length; i++) {
      const k = arm[held[i]];
      s += K === 2 ? logLoss(p[i], k) : -Math.log(Math.max(EPS, p[i * K + k]));
    }
    propensityLoss[name] = s / Math.max(1, held.length);
    yield;
  }
  const best = (loss: Record<string, number>) => NAMES.reduce((b, n) => (loss[n] < loss[b] ? n : b), NAMES[0]);
  return { outcome: best(outcomeLoss), propensity: best(propensityLoss), outcomeLoss, propensityLoss };
}
