/**
 * Which learner to serve: each candidate's out-of-fold CATE τ̂ is scored by the overlap-weighted
 * DR pseudo-outcome loss
 *     L(τ̂) = Σ_j w_j (φ_j − τ̂_j)² / Σ_j w_j
 * per treated arm (summed over the arms), with φ the cross-fitted AIPW pseudo-outcomes and w the
 * overlap weights ê_a·ê_c/(ê_a + ê_c) (./aipw). Why this loss: E[φ | x] = τ(x), so for any two
 * candidates the difference of their expected losses is the difference of their w-weighted
 * squared errors against the true τ (the noise term is common); the weights tame the rows whose
 * φ is blown up by 1/ê (the weights the R-loss implies, Nie & Wager 2021). It favours accuracy
 * where both arms are seen, which is where any learner's CATE can be checked at all.
 *
 * A blend (convex weights on a 0.1 grid over the candidates) is served instead of the best single
 * learner when its loss is lower; the blend is one ensemble again (../gbdt/blend).
 */
import type { LearnerName } from "./learners";

/** Blend weights move in steps of 1/BLEND_STEPS. */
const BLEND_STEPS = 10;

export interface Selection {
  /** The served mix: a single learner (weight 1) or a blend. */
  weights: Partial<Record<LearnerName, number>>;
  /** Each candidate's loss (summed over the treated arms). */
  losses: Partial<Record<LearnerName, number>>;
  /** The served mix's loss (equal to the best candidate's unless blended). */
  loss: number;
}

/** Per treated arm: the candidates' out-of-fold CATE (per included row), φ and w (per included row). */
export interface ArmScores {
  oof: Map<LearnerName, Float64Array>;
  phi: Float64Array;
  weight: Float64Array;
}

/** @internal exported for test/ml/causal-select.test.ts */
export function weightedLoss(tau: Float64Array, phi: Float64Array, weight: Float64Array): number {
  let s = 0;
  let sw = 0;
  for (let j = 0; j < tau.length; j++) {
    s += weight[j] * (phi[j] - tau[j]) ** 2;
    sw += weight[j];
  }
  return s / sw;
}

/** Every way to split BLEND_STEPS among `n` candidates. */
function compositions(n: number, total: number): number[][] {
  if (n === 1) return [[total]];
  const out: number[][] = [];
  for (let first = 0; first <= total; first++) for (const rest of compositions(n - 1, total - first)) out.push([first, ...rest]);
  return out;
}

function mixLoss(names: LearnerName[], c: number[], arms: ArmScores[]): number {
  let loss = 0;
  for (const s of arms) {
    const cols = names.map((n) => s.oof.get(n)!);
    const mix = new Float64Array(s.phi.length);
    for (let i = 0; i < names.length; i++) if (c[i] !== 0) for (let j = 0; j < mix.length; j++) mix[j] += c[i] * cols[i][j];
    loss += weightedLoss(mix, s.phi, s.weight);
  }
  return loss;
}

export function selectLearner(names: LearnerName[], arms: ArmScores[]): Selection {
  const losses: Partial<Record<LearnerName, number>> = {};
  let best = names[0];
  for (const n of names) {
    losses[n] = arms.reduce((s, a) => s + weightedLoss(a.oof.get(n)!, a.phi, a.weight), 0);
    if (losses[n]! < losses[best]!) best = n;
  }
  let weights: Partial<Record<LearnerName, number>> = { [best]: 1 };
  let loss = losses[best]!;
  for (const steps of compositions(names.length, BLEND_STEPS)) {
    if (steps.filter((k) => k > 0).length < 2) continue;
    const c = steps.map((k) => k / BLEND_STEPS);
    const l = mixLoss(names, c, arms);
    if (l < loss) {
      loss = l;
      weights = Object.fromEntries(names.map((n, i) => [n, c[i]] as const).filter(([, w]) => w > 0));
    }
  }
  return { weights, losses, loss };
}
