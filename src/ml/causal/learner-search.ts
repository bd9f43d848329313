/**
 * The effect (CATE) models a causal model serves, one per treated arm: with `learner` "auto" the
 * candidates T, S, X and DR (./learners) are each fit out of fold on the cross-fitting's folds and
 * scored (./select); the best, or a blend that scores better, is then fit on all rows. A fixed
 * learner skips the scoring.
 */
import type { GbdtModel, Objective } from "../gbdt/model";
import type { CrossFit, PseudoOutcomes } from "./aipw";
import { combineGbdts } from "./combine";
import { assignFolds, type FitInput, type TreeSettings } from "./fit";
import { type ArmProblem, fitLearner, LEARNERS, type LearnerName, learnerFitCount, outOfFold } from "./learners";
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
}

/** The per-frame-row targets of treated arm `a` (1-based) every learner reads. */
export function armProblem(s: SearchInput, a: number): ArmProblem {
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
    const mua = s.cf.mu[j * s.K + a];
    const muc = s.cf.mu[j * s.K];
    muDifference[r] = mua - muc;
    if (s.arm[r] === a) {
      imputed[r] = s.y[r] - muc;
      treated++;
    } else if (s.arm[r] === 0) {
      imputed[r] = mua - s.y[r];
      control++;
    }
    phi[r] = s.po.phi[j * A + a - 1];
    weight[r] = s.weights[j * A + a - 1];
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
  return (s.K - 1) * LEARNERS.reduce((n, l) => n + (learnerFitCount(l, s.outcome) === 0 ? 0 : s.folds * learnerFitCount(l, s.outcome)), 0);
}

/** GBDT fits of the served effect models of a mix. */
export function servedFitCount(weights: Partial<Record<LearnerName, number>>, s: { K: number; outcome: Objective }): number {
  return (s.K - 1) * Object.keys(weights).reduce((n, l) => n + learnerFitCount(l as LearnerName, s.outcome), 0);
}

/** Scores the candidates out of fold (auto) or takes the fixed learner; yields once per fit. */
export function* chooseLearner(s: SearchInput, problems: ArmProblem[], choice: LearnerChoice): Generator<void, Selection | null, void> {
  if (choice !== "auto") return null;
  const fold = assignFolds(s.rows, s.arm, s.K, s.folds, s.seed);
  const arms: ArmScores[] = [];
  for (const p of problems) {
    const oof = new Map<LearnerName, Float64Array>();
    for (const name of LEARNERS) oof.set(name, yield* outOfFold(name, p, s.rows, fold, s.folds, s.seed + 7 * LEARNERS.indexOf(name)));
    arms.push({
      oof,
      phi: Float64Array.from(s.rows, (r) => p.phi[r]),
      weight: Float64Array.from(s.rows, (r) => p.weight[r]),
    });
  }
  return selectLearner([...LEARNERS], arms);
}

/**
 * The served effect model of each treated arm: the mix's learners fit on all included rows and
 * combined. `outcomeModels` are the served outcome models (T reuses them on a numeric outcome).
 */
export function* fitServedEffects(
  s: SearchInput,
  problems: ArmProblem[],
  weights: Partial<Record<LearnerName, number>>,
  outcomeModels: GbdtModel[],
): Generator<void, GbdtModel[], void> {
  const out: GbdtModel[] = [];
  for (const p of problems) {
    const terms = [];
    for (const [name, coef] of Object.entries(weights) as [LearnerName, number][]) {
      // the seed the DR effect model had before the learner choice, so a DR model is unchanged
      const model = yield* fitLearner(name, p, s.rows, s.seed + 1299709 * p.a, outcomeModels);
      terms.push({ model, coef });
    }
    out.push(terms.length === 1 && terms[0].coef === 1 ? terms[0].model : combineGbdts(terms));
  }
  return out;
}
