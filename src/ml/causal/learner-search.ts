/**
 * The effect (CATE) models a causal model serves, one per treated arm: with `learner` "auto" the
 * candidates T, S, X, DR and the constant average effect (./learners) are each fit out of fold on
 * the cross-fitting's folds and stacked (./select); the mix's members are then fit on all rows. A
 * fixed learner skips the scoring.
 */
import { blendGbdtModels } from "../gbdt/blend";
import type { GbdtModel, Objective } from "../gbdt/model";
import { armColumn, type CrossFit, overlapWeights, type PseudoOutcomes, pseudoOutcomes } from "./aipw";
import { assignFolds, type FitInput, predictRows, type TreeSettings } from "./fit";
import { type ArmProblem, CANDIDATES, type CandidateName, fitLearner, type LearnerName, learnerFitCount, reusesOutcomeModels } from "./learners";
import { type ArmScores, type Selection, selectLearner } from "./select";

export type LearnerChoice = "auto" | LearnerName;

export interface SearchInput {
  input: FitInput;
  y: Float64Array;
  arm: Int32Array;
  /** Included frame rows (treatment and outcome known). */
  rows: Int32Array;
  K: number;
  cf: CrossFit;
  po: PseudoOutcomes;
  /** Overlap weights per included row × treated arm (./aipw overlapWeights). */
  weights: Float64Array;
  outcome: Objective;
  outcomeSettings: TreeSettings;
  folds: number;
  seed: number;
  clip: [number, number];
}

/**
 * The per-frame-row targets of treated arm `a` (1-based) every learner reads, from nuisance
 * predictions `nu` on the included rows (the cross-fitted ones, or one fold's models) and the
 * pseudo-outcomes φ and overlap weights built from them.
 */
export function armProblem(
  s: SearchInput,
  a: number,
  nu: { mu: Float64Array; e: Float64Array },
  phiAll: Float64Array,
  weights: Float64Array,
): ArmProblem {
  const N = s.y.length;
  const A = s.K - 1;
  const nan = () => new Float64Array(N).fill(NaN);
  const muDifference = nan();
  const imputed = nan();
  const phi = nan();
  const weight = new Float64Array(N);
  let treated = 0;
  let control = 0;
  s.rows.forEach((r, j) => {
    const mua = nu.mu[j * s.K + a];
    const muc = nu.mu[j * s.K];
    muDifference[r] = mua - muc;
    if (s.arm[r] === a) {
      imputed[r] = s.y[r] - muc;
      treated++;
    } else if (s.arm[r] === 0) {
      imputed[r] = mua - s.y[r];
      control++;
    }
    phi[r] = phiAll[j * A + a - 1];
    weight[r] = weights[j * A + a - 1];
  });
  return {
    input: s.input,
    y: s.y,
    arm: s.arm,
    a,
    muDifference,
    imputed,
    treatedShare: treated / (treated + control),
    phi,
    weight,
    outcome: s.outcome,
    outcomeSettings: s.outcomeSettings,
  };
}

/** GBDT fits of the out-of-fold scoring (0 for a fixed learner). */
export function scoringFitCount(choice: LearnerChoice, s: { K: number; folds: number; outcome: Objective }): number {
  if (choice !== "auto") return 0;
  return (s.K - 1) * CANDIDATES.reduce((n, l) => n + s.folds * learnerFitCount(l, s.outcome), 0);
}

/** GBDT fits of the served effect models of a mix. */
export function servedFitCount(weights: Partial<Record<CandidateName, number>>, s: { K: number; outcome: Objective }): number {
  return (s.K - 1) * Object.keys(weights).reduce((n, l) => n + learnerFitCount(l as CandidateName, s.outcome), 0);
}

/**
 * Scores the candidates out of fold (auto) or takes the fixed learner; yields once per fit. A
 * candidate scored on fold f is fit on the other folds' rows with labels (X's imputed effects,
 * DR's φ) from fold f's nuisance models, which never saw fold f: labels from the cross-fitted
 * nuisance would carry fold f's outcomes (its rows trained the other folds' models), and a
 * candidate learning them would look better on fold f than it is.
 */
export function* chooseLearner(s: SearchInput, choice: LearnerChoice): Generator<void, Selection | null, void> {
  if (choice !== "auto") return null;
  const fold = assignFolds(s.rows, s.arm, s.K, s.folds, s.seed);
  const A = s.K - 1;
  const oof = Array.from({ length: A }, () => new Map(CANDIDATES.map((l) => [l, new Float64Array(s.rows.length)] as const)));
  for (let f = 0; f < s.folds; f++) {
    const nu = s.cf.byFold?.[f];
    const heldIdx = s.rows.map((_, j) => j).filter((j) => fold[j] === f);
    if (!nu || heldIdx.length === 0) continue;
    const held = Int32Array.from(heldIdx, (j) => s.rows[j]);
    const train = s.rows.filter((_, j) => fold[j] !== f);
    const po = pseudoOutcomes(nu, s.y, s.arm, s.rows, s.K, s.clip);
    const w = overlapWeights(nu, s.K);
    for (let a = 1; a <= A; a++) {
      const p = armProblem(s, a, nu, po.phi, w);
      for (const name of CANDIDATES) {
        const out = oof[a - 1].get(name)!;
        if (reusesOutcomeModels(name, s.outcome)) {
          heldIdx.forEach((j, i) => (out[j] = p.muDifference[held[i]]));
          continue;
        }
        const model = yield* fitLearner(name, p, train, s.seed + 1009 * (f + 1) + 7 * CANDIDATES.indexOf(name));
        const pred = predictRows(model, s.input.m, held);
        heldIdx.forEach((j, i) => (out[j] = pred[i]));
      }
    }
  }
  const arms: ArmScores[] = oof.map((m, a) => ({
    oof: m,
    phi: armColumn(s.po.phi, A, a),
    weight: armColumn(s.weights, A, a),
  }));
  return selectLearner([...CANDIDATES], arms, s.seed);
}

/**
 * The served effect model of each treated arm: the mix's learners fit on all included rows and
 * combined. `outcomeModels` are the served outcome models (T reuses them on a numeric outcome).
 */
export function* fitServedEffects(
  s: SearchInput,
  problems: ArmProblem[],
  weights: Partial<Record<CandidateName, number>>,
  outcomeModels: GbdtModel[],
): Generator<void, GbdtModel[], void> {
  const out: GbdtModel[] = [];
  for (const p of problems) {
    const terms = [];
    for (const [name, coef] of Object.entries(weights) as [CandidateName, number][]) {
      // the seed the DR effect model had before the learner choice, so a DR model is unchanged
      const model = yield* fitLearner(name, p, s.rows, s.seed + 1299709 * p.a, outcomeModels);
      terms.push({ model, weight: coef });
    }
    out.push(blendGbdtModels(terms));
  }
  return out;
}
