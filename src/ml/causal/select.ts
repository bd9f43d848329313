/**
 * Which CATE to serve: each candidate's out-of-fold CATE τ̂ is scored by the overlap-weighted
 * DR pseudo-outcome loss
 *     L(τ̂) = Σ_j w_j (φ_j − τ̂_j)² / Σ_j w_j
 * per treated arm (summed over the arms), with φ the cross-fitted AIPW pseudo-outcomes and w the
 * overlap weights ê_a·ê_c/(ê_a + ê_c) (./aipw). Why this loss: E[φ | x] = τ(x), so for any two
 * candidates the difference of their expected losses is the difference of their w-weighted
 * squared errors against the true τ (the noise term is common); the weights tame the rows whose
 * φ is blown up by 1/ê (the weights the R-loss implies, Nie & Wager 2021). It favours accuracy
 * where both arms are seen, which is where any learner's CATE can be checked at all.
 *
 * The served mix is a stack: the convex weights over the candidates' out-of-fold CATEs that
 * minimise L (./simplex-least-squares), averaged over bootstrap resamples of the rows. Why not
 * the lowest-loss candidate, or the lowest-loss blend on a grid: φ is noisy, so the pick jumps
 * between near-equal candidates from one sample to the next and lands near the best rather than
 * on it; averaging the stack over resamples smooths that jump into a blend (bagging the choice,
 * Breiman 1996). How the rule was chosen: bench/causal/RESULTS.md. The blend is one ensemble
 * again (../gbdt/blend).
 */

import { Rng } from "../random";
import type { CandidateName } from "./learners";
import { simplexLeastSquares } from "./simplex-least-squares";

/** Bootstrap resamples the stack's weights are averaged over. */
const BOOTSTRAP_ROUNDS = 30;
/**
 * Served weights are rounded to 1/WEIGHT_STEPS: a member below half a step barely moves the CATE
 * but would still cost its fits on all rows and its trees in the graph.
 */
const WEIGHT_STEPS = 20;

export interface Selection {
  /** The served mix: a single candidate (weight 1) or a blend. */
  weights: Partial<Record<CandidateName, number>>;
  /** Each candidate's loss (summed over the treated arms). */
  losses: Partial<Record<CandidateName, number>>;
  /** The served mix's loss. */
  loss: number;
}

/** Per treated arm: the candidates' out-of-fold CATE (per included row), φ and w (per included row). */
export interface ArmScores {
  oof: Map<CandidateName, Float64Array>;
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

/**
 * The loss of a mix c as c'Gc − 2b'c + const, summed over the arms, each row counted `count[j]`
 * times (a bootstrap resample; all 1 for the sample itself).
 */
function lossQuadratic(names: CandidateName[], arms: ArmScores[], count: Float64Array): { G: number[][]; b: number[] } {
  const k = names.length;
  const G = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  const b = new Array<number>(k).fill(0);
  // flat accumulators and a per-row copy of the candidates' values: this runs once per
  // bootstrap round over every row, so it must stay a tight typed-array loop
  const gAcc = new Float64Array(k * k);
  const bAcc = new Float64Array(k);
  const v = new Float64Array(k);
  for (const s of arms) {
    const cols = names.map((n) => s.oof.get(n)!);
    gAcc.fill(0);
    bAcc.fill(0);
    let sw = 0;
    for (let j = 0; j < s.phi.length; j++) {
      const w = count[j] * s.weight[j];
      if (w === 0) continue;
      sw += w;
      const wphi = w * s.phi[j];
      for (let i = 0; i < k; i++) v[i] = cols[i][j];
      for (let i = 0; i < k; i++) {
        const wi = w * v[i];
        bAcc[i] += wphi * v[i];
        for (let l = i; l < k; l++) gAcc[i * k + l] += wi * v[l];
      }
    }
    for (let i = 0; i < k; i++) {
      b[i] += bAcc[i] / sw;
      for (let l = i; l < k; l++) G[i][l] = G[l][i] = G[i][l] + gAcc[i * k + l] / sw;
    }
  }
  return { G, b };
}

/** Weights on the 1/WEIGHT_STEPS grid summing to 1 (largest remainders). */
function roundWeights(c: number[]): number[] {
  const steps = c.map((v) => Math.floor(v * WEIGHT_STEPS));
  const order = c.map((v, i) => [v * WEIGHT_STEPS - steps[i], i] as const).sort((x, y) => y[0] - x[0]);
  let left = WEIGHT_STEPS - steps.reduce((s, v) => s + v, 0);
  for (const [, i] of order) if (left-- > 0) steps[i]++;
  return steps.map((v) => v / WEIGHT_STEPS);
}

function mixLoss(names: CandidateName[], c: number[], arms: ArmScores[]): number {
  let loss = 0;
  for (const s of arms) {
    const mix = new Float64Array(s.phi.length);
    names.forEach((n, i) => {
      const col = s.oof.get(n)!;
      if (c[i] !== 0) for (let j = 0; j < mix.length; j++) mix[j] += c[i] * col[j];
    });
    loss += weightedLoss(mix, s.phi, s.weight);
  }
  return loss;
}

export function selectLearner(names: CandidateName[], arms: ArmScores[], seed: number): Selection {
  const losses: Partial<Record<CandidateName, number>> = {};
  for (const n of names) losses[n] = arms.reduce((s, a) => s + weightedLoss(a.oof.get(n)!, a.phi, a.weight), 0);
  const rows = arms[0].phi.length;
  const mean = new Array<number>(names.length).fill(0);
  const rng = new Rng(seed ^ 0xb00757);
  const count = new Float64Array(rows);
  for (let r = 0; r < BOOTSTRAP_ROUNDS; r++) {
    count.fill(0);
    for (let j = 0; j < rows; j++) count[rng.int(rows)]++;
    const { G, b } = lossQuadratic(names, arms, count);
    simplexLeastSquares(G, b).forEach((v, i) => (mean[i] += v / BOOTSTRAP_ROUNDS));
  }
  const c = roundWeights(mean);
  const weights = Object.fromEntries(names.map((n, i) => [n, c[i]] as const).filter(([, w]) => w > 0));
  return { weights, losses, loss: mixLoss(names, c, arms) };
}
