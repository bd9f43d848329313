/**
 * The meta-learners a causal model chooses among, each giving one treated arm's CATE as one
 * regression GBDT (../gbdt/blend: a weighted sum of GBDTs is one GBDT), fit on any subset of the included rows:
 * - T: an outcome model per arm, τ = μ_a − μ_c;
 * - S: one outcome model on the features plus a treated/control column, τ = μ(x, 1) − μ(x, 0)
 *   (./specialize resolves the splits on that column);
 * - X: imputed effects from the cross-fitted outcome models, D = Y − μ_c(x) on treated rows and
 *   μ_a(x) − Y on control rows, one effect model per side, τ = g·τ_c + (1 − g)·τ_a with g the
 *   treated share (Künzel et al. 2019 allow a constant g; the propensity they suggest would make
 *   τ a product of ensembles, not one);
 * - DR: the overlap-weighted regression of the AIPW pseudo-outcomes φ (./aipw overlapWeights);
 * - ATE (a blend candidate only, not a `learner` param): the constant effect at the mean of φ
 *   over the rows (on all rows, the AIPW average effect), a model with no splits. Blending it in
 *   shrinks a learner's CATE toward the average effect, which helps where the heterogeneity the
 *   learners find is mostly noise (the constant-effect case).
 * A binary outcome's T and S fit regression (squared error) trees on the 0/1 outcome: their sums
 * are probabilities, so differences of them are one ensemble again; the cross-fitted outcome
 * models (binary objective, probabilities) still feed X and DR.
 */
import { blendGbdtModels } from "../gbdt/blend";
import { emptyTree, type GbdtModel, type Objective } from "../gbdt/model";
import { type FitInput, fitGbdt, type TreeSettings } from "./fit";
import { fixLastFeature } from "./specialize";
import { withArmColumn } from "./treatment-feature";

export const LEARNERS = ["t", "s", "x", "dr"] as const;
export type LearnerName = (typeof LEARNERS)[number];
/** What the automatic choice blends: the learners and the constant effect. */
export const CANDIDATES = [...LEARNERS, "ate"] as const;
export type CandidateName = (typeof CANDIDATES)[number];

/** What every learner of one treated arm reads; label arrays are per frame row. */
export interface ArmProblem {
  input: FitInput;
  y: Float64Array;
  arm: Int32Array;
  /** The treated arm's index (the control is 0). */
  a: number;
  /** μ_a − μ_c per frame row from the nuisance models the labels come from (T's predictions when reusable). */
  muDifference: Float64Array;
  /** D of the X-learner per frame row (treated: Y − μ_c, control: μ_a − Y, others NaN), μ not fit on that row. */
  imputed: Float64Array;
  /** Treated share among this arm's and the control's rows (X's g). */
  treatedShare: number;
  /** φ_a and its overlap weight per frame row (DR). */
  phi: Float64Array;
  weight: Float64Array;
  outcome: Objective;
  outcomeSettings: TreeSettings;
  /** The S-learner's input: the features plus the treated (1) / control (0) column, built on first use. */
  sInput?: FitInput;
}

/**
 * T on a numeric outcome reuses the cross-fitted outcome models (out of fold) and the served ones
 * (all rows): they are the T-learner's own fits.
 */
export function reusesOutcomeModels(name: CandidateName, outcome: Objective): boolean {
  return name === "t" && outcome === "regression";
}

/** GBDT fits one learner's CATE costs (0 when it reuses the outcome models, and for the constant). */
export function learnerFitCount(name: CandidateName, outcome: Objective): number {
  if (name === "ate" || reusesOutcomeModels(name, outcome)) return 0;
  return name === "t" || name === "x" ? 2 : 1;
}

/**
 * The learner's CATE model fit on `train` (frame rows of any arms; each learner keeps the ones
 * it uses). `served` are the outcome models fit on all rows (T's final model when reused). Yields
 * once per GBDT fit.
 */
export function* fitLearner(
  name: CandidateName,
  p: ArmProblem,
  train: Int32Array,
  seed: number,
  served?: GbdtModel[],
): Generator<void, GbdtModel, void> {
  const treated = train.filter((r) => p.arm[r] === p.a);
  const control = train.filter((r) => p.arm[r] === 0);
  const nuisance = { kind: "nuisance" as const, settings: p.outcomeSettings };
  switch (name) {
    case "t": {
      if (reusesOutcomeModels(name, p.outcome) && served)
        return blendGbdtModels([
          { model: served[p.a], weight: 1 },
          { model: served[0], weight: -1 },
        ]);
      const mu1 = fitGbdt(p.input, p.y, treated, "regression", { ...nuisance, seed: seed + 1 });
      yield;
      const mu0 = fitGbdt(p.input, p.y, control, "regression", { ...nuisance, seed: seed + 2 });
      yield;
      return blendGbdtModels([
        { model: mu1, weight: 1 },
        { model: mu0, weight: -1 },
      ]);
    }
    case "s": {
      // codes: control 0, this arm 1, other arms' rows are not used
      p.sInput ??= withArmColumn(p.input, (r) => (p.arm[r] === p.a ? 1 : p.arm[r] === 0 ? 0 : -1), 2);
      const both = train.filter((r) => p.arm[r] === p.a || p.arm[r] === 0);
      const mu = fitGbdt(p.sInput, p.y, both, "regression", { ...nuisance, seed: seed + 3 });
      yield;
      return blendGbdtModels([
        { model: fixLastFeature(mu, 1), weight: 1 },
        { model: fixLastFeature(mu, 0), weight: -1 },
      ]);
    }
    case "x": {
      const tau1 = fitGbdt(p.input, p.imputed, treated, "regression", { kind: "effect", seed: seed + 4 });
      yield;
      const tau0 = fitGbdt(p.input, p.imputed, control, "regression", { kind: "effect", seed: seed + 5 });
      yield;
      const g = p.treatedShare;
      return blendGbdtModels([
        { model: tau0, weight: g },
        { model: tau1, weight: 1 - g },
      ]);
    }
    case "dr": {
      const model = fitGbdt(p.input, p.phi, train, "regression", { kind: "effect", seed, weight: p.weight });
      yield;
      return model;
    }
    case "ate":
      return constantModel(p, train);
  }
}

/** The mean of φ over `train`'s rows as a model: that base score and one leaf of 0 (an export needs a tree). */
function constantModel(p: ArmProblem, train: Int32Array): GbdtModel {
  let sum = 0;
  for (const r of train) sum += p.phi[r];
  const leaf = { ...emptyTree(), leafValue: [0], leafCover: [train.length] };
  return {
    format: "gbdt-v1",
    objective: "regression",
    numOutputs: 1,
    baseScore: [sum / train.length],
    trees: [leaf],
    numFeatures: p.input.m.numFeatures,
    featureNames: p.input.featureNames,
    bestIteration: 0,
  };
}
