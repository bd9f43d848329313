/**
 * Cross-fitted AIPW (augmented inverse-propensity weighting), the doubly-robust core:
 *
 * - rows are dealt into `folds` folds, stratified by arm; for each fold, outcome models μ_k (one
 *   per arm k, fit on that arm's rows outside the fold) and a propensity model e(x) (binary:
 *   treated vs control; multi-arm: multiclass over the arms) are fit outside the fold and predict
 *   the fold's rows, so no row's nuisance prediction has seen that row;
 * - propensities are clipped to [lo, hi] (binary: e_treated clipped, e_control = 1 − it;
 *   multi-arm: each arm's clipped on its own);
 * - per row and treated arm a (against control c):
 *     φ_a = μ_a − μ_c + 1[T=a](Y − μ_a)/e_a − 1[T=c](Y − μ_c)/e_c
 *   whose mean is the ATE, and whose spread gives its standard error (the influence function of
 *   the AIPW estimator is φ − ATE, so se = sd(φ)/√n).
 * Either a right outcome model or a right propensity model keeps the mean unbiased.
 */
import type { Objective } from "../gbdt/model";
import { assignFolds, type FitInput, fitGbdt, predictRows, type TreeSettings } from "./fit";
import { fitOutcomeModels, outcomeFitCount } from "./outcome-models";

/** z of a two-sided 95% normal interval. */
const Z95 = 1.959963984540054;

export interface CrossFit {
  /** Per included row j and arm k: μ_k(x_j) at [j * K + k], out of fold. */
  mu: Float64Array;
  /** Per included row and arm: the raw (unclipped) propensity, out of fold. */
  e: Float64Array;
  /**
   * Per fold: that fold's models (fit without it) on every included row, same layout. The learner
   * scoring fits each candidate without a fold on labels from these, so no label it learns from
   * has seen the fold it is scored on (./learner-search).
   */
  byFold?: { mu: Float64Array; e: Float64Array }[];
}

/** Fits the cross-fitting does: per fold, the outcome models (./outcome-models) and the propensity model. */
export function crossFitCount(folds: number, K: number, outcome: Objective): number {
  return folds * (outcomeFitCount(K, outcome) + 1);
}

/**
 * Out-of-fold μ and e for the included `rows` (frame rows with both treatment and outcome).
 * Yields once per model fit.
 */
export function* crossFitSteps(
  input: FitInput,
  y: Float64Array,
  arm: Int32Array,
  rows: Int32Array,
  K: number,
  opts: { folds: number; seed: number; outcome: Objective; outcomeSettings?: TreeSettings; propensitySettings?: TreeSettings },
): Generator<void, CrossFit, void> {
  const n = rows.length;
  const fold = assignFolds(rows, arm, K, opts.folds, opts.seed);
  const mu = new Float64Array(n * K);
  const e = new Float64Array(n * K);
  const byFold: { mu: Float64Array; e: Float64Array }[] = [];
  // the propensity label per frame row: treated (1) vs control (0), or the arm index
  const armLabel = Float64Array.from(arm, (a) => (a < 0 ? NaN : a));
  let fit = 0;
  for (let f = 0; f < opts.folds; f++) {
    const inFold: number[] = [];
    const out: number[] = [];
    for (let j = 0; j < n; j++) (fold[j] === f ? inFold : out).push(j);
    if (inFold.length === 0) continue;
    const trainAll = Int32Array.from(out, (j) => rows[j]);
    const models = yield* fitOutcomeModels(input, y, arm, trainAll, K, {
      outcome: opts.outcome,
      seed: opts.seed + 7919 * ++fit,
      settings: opts.outcomeSettings,
    });
    const foldMu = new Float64Array(n * K);
    for (let k = 0; k < K; k++) {
      const p = predictRows(models[k], input.m, rows);
      for (let j = 0; j < n; j++) foldMu[j * K + k] = p[j];
    }
    const objective: Objective = K === 2 ? "binary" : "multiclass";
    const prop = fitGbdt(input, armLabel, trainAll, objective, {
      kind: "nuisance",
      seed: opts.seed + 7919 * ++fit,
      numClasses: K,
      settings: opts.propensitySettings,
    });
    const p = predictRows(prop, input.m, rows);
    const foldE = new Float64Array(n * K);
    for (let j = 0; j < n; j++) {
      if (K === 2) {
        foldE[j * 2] = 1 - p[j];
        foldE[j * 2 + 1] = p[j];
      } else for (let k = 0; k < K; k++) foldE[j * K + k] = p[j * K + k];
    }
    for (const j of inFold) {
      for (let k = 0; k < K; k++) {
        mu[j * K + k] = foldMu[j * K + k];
        e[j * K + k] = foldE[j * K + k];
      }
    }
    byFold[f] = { mu: foldMu, e: foldE };
    yield;
  }
  return { mu, e, byFold };
}

export interface PseudoOutcomes {
  /** Per included row j and treated arm a (1..K-1): φ_a at [j * (K-1) + a - 1]. */
  phi: Float64Array;
  /** Rows whose propensity (of any arm) fell outside [lo, hi]. */
  clippedRows: number;
  /** Range of the raw propensity of the treated arms (binary: of being treated). */
  propensityMin: number;
  propensityMax: number;
}

export function pseudoOutcomes(cf: CrossFit, y: Float64Array, arm: Int32Array, rows: Int32Array, K: number, clip: [number, number]): PseudoOutcomes {
  const [lo, hi] = clip;
  const n = rows.length;
  const A = K - 1;
  const phi = new Float64Array(n * A);
  const eClip = new Float64Array(K);
  let clippedRows = 0;
  let propensityMin = Infinity;
  let propensityMax = -Infinity;
  for (let j = 0; j < n; j++) {
    const r = rows[j];
    let clipped = false;
    for (let k = 0; k < K; k++) {
      const raw = cf.e[j * K + k];
      if (k > 0) {
        propensityMin = Math.min(propensityMin, raw);
        propensityMax = Math.max(propensityMax, raw);
      }
      if (raw < lo || raw > hi) clipped = true;
      eClip[k] = Math.min(hi, Math.max(lo, raw));
    }
    if (K === 2) eClip[0] = 1 - eClip[1];
    if (clipped) clippedRows++;
    const t = arm[r];
    const yr = y[r];
    const mu0 = cf.mu[j * K];
    const control = t === 0 ? (yr - mu0) / eClip[0] : 0;
    for (let a = 1; a < K; a++) {
      const mua = cf.mu[j * K + a];
      const treated = t === a ? (yr - mua) / eClip[a] : 0;
      phi[j * A + a - 1] = mua - mu0 + treated - control;
    }
  }
  return { phi, clippedRows, propensityMin, propensityMax };
}

export interface AipwEstimate {
  ate: number;
  std_error: number;
  ci_low: number;
  ci_high: number;
  n: number;
}

/** ATE with a 95% CI from AIPW pseudo-outcomes (mean, std error = sd/sqrt(n)); NaN values are skipped. */
export function aipwEstimate(pseudo: Float64Array): AipwEstimate {
  let n = 0;
  let sum = 0;
  for (const v of pseudo) {
    if (v !== v) continue;
    n++;
    sum += v;
  }
  const ate = n > 0 ? sum / n : NaN;
  let ss = 0;
  for (const v of pseudo) if (v === v) ss += (v - ate) * (v - ate);
  const se = n > 1 ? Math.sqrt(ss / (n - 1) / n) : NaN;
  return { ate, std_error: se, ci_low: ate - Z95 * se, ci_high: ate + Z95 * se, n };
}

/** Column a (0-based treated arm) of the row-major [n x A] pseudo-outcomes. */
export function armColumn(phi: Float64Array, A: number, a: number): Float64Array {
  const n = phi.length / A;
  return Float64Array.from({ length: n }, (_, j) => phi[j * A + a]);
}

/**
 * Per included row j and treated arm a, the effect model's fitting weight at [j * (K-1) + a - 1]:
 * w = e_a·e_c / (e_a + e_c) (binary: e(1 − e)), from the cross-fitted propensities. φ_a's
 * conditional variance is about σ²/e_a + σ²/e_c, so w is its inverse up to a constant: rows that
 * are (nearly) always or never treated, whose φ is a residual blown up by 1/e, count less. The
 * propensities are the raw ones, not the clipped ones φ uses: past the clip bounds φ is biased
 * as well as noisy (the clip undoes only part of the weighting, and μ of the rare arm is
 * extrapolated there), so those rows get the small weight their real overlap implies, not the
 * floor the clip would give them. A weight that is a function of x leaves the target
 * E[φ_a | x] = τ_a(x) unchanged. Scaled to mean 1 per arm (only relative weights matter to the
 * fit; their scale would change how much L2 shrinks).
 */
export function overlapWeights(cf: CrossFit, K: number): Float64Array {
  const A = K - 1;
  const n = cf.e.length / K;
  const w = new Float64Array(n * A);
  const sum = new Float64Array(A);
  for (let j = 0; j < n; j++) {
    const ec = cf.e[j * K];
    for (let a = 0; a < A; a++) {
      const ea = cf.e[j * K + a + 1];
      const v = ea + ec > 0 ? (ea * ec) / (ea + ec) : 0;
      w[j * A + a] = v;
      sum[a] += v;
    }
  }
  for (let a = 0; a < A; a++) {
    // no overlap at all for an arm (cannot happen with GBDT probabilities): fall back to equal weights
    const scale = sum[a] > 0 ? n / sum[a] : 0;
    for (let j = 0; j < n; j++) w[j * A + a] = scale > 0 ? w[j * A + a] * scale : 1;
  }
  return w;
}
