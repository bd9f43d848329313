/**
 * Principal component analysis of standardized rows, with optional varimax rotation.
 *
 * - Solver: the exact eigen-decomposition of the covariance (./eigen, float64) up to
 *   EXACT_MAX_COLUMNS columns; above, the randomized subspace iteration (./randomized), seeded.
 * - Components kept: `nComponents` when given, else the fewest reaching AUTO_VARIANCE of the
 *   total variance, at most AUTO_MAX. Ratios divide by the exact total variance (the trace of
 *   the covariance) on both solvers.
 * - Signs: each factor's largest-|loading| entry is positive (the first such entry on ties), so
 *   retraining gives the same signs; as scikit-learn's svd_flip applied to the components.
 *
 * Unrotated, the score weights ("components", unit vectors) are the eigenvectors V and a row's
 * scores are (x − mean)·Vᵀ, scikit-learn's `transform`; factor j's variance is λ_j.
 * Loadings are L = V·√Λ: the covariance of each column with the factor scaled to unit variance
 * (≈ the correlation for a standardized numeric column).
 * Varimax rotates the loadings: L' = L·R (R from ./varimax). The rotated factors stay
 * uncorrelated when their weights are W = V·Λ^(−1/2)·R·diag(√ev), ev_j = Σ_d L'_dj² being the
 * rotated factor's variance, and L' is again each column's covariance with the unit-variance
 * factor. With R = I all of this reduces to the unrotated case. Rotated factors are ordered by
 * variance; the total explained by k factors does not change.
 */
import { MlInputError } from "../errors";
import { symmetricEigen } from "./eigen";
import { type ChunkSource, covariancePass, momentsPass } from "./passes";
import { DEFAULT_POWER_ITERATIONS, randomizedEigen, randomizedPasses } from "./randomized";
import { varimaxRotation } from "./varimax";

/** Widest data decomposed exactly (a D x D covariance and its eigenvectors). */
const EXACT_MAX_COLUMNS = 500;
export const AUTO_VARIANCE = 0.9;
export const AUTO_MAX = 10;
/** Extra random directions of the randomized solver beyond the components it returns. */
const OVERSAMPLING = 10;

export type Rotation = "none" | "varimax";

export interface PcaOptions {
  /** Components to keep (1..D); null/undefined: the AUTO_VARIANCE rule. */
  nComponents?: number | null;
  rotation?: Rotation;
  seed?: number;
  /** Force a solver (tests, benchmarks); default by width. */
  solver?: "exact" | "randomized";
  powerIterations?: number;
}

export interface PcaFit {
  D: number;
  numRows: number;
  solver: "exact" | "randomized";
  rotation: Rotation;
  k: number;
  rule: "requested" | "auto";
  /** Training mean of the standardized columns. */
  mean: Float64Array;
  /** Sum of the column variances (divisor N − 1). */
  totalVariance: number;
  /** Variances of the unrotated components computed (all D exact; the leading few randomized). */
  eigenvalues: Float64Array;
  /** Row-major [k x D] score weights: scores = (x − mean)·componentsᵀ. */
  components: Float64Array;
  /** Row-major [k x D]. */
  loadings: Float64Array;
  /** Per factor: variance of its scores; ratio = / totalVariance. */
  explainedVariance: Float64Array;
}

/** Progress of the fit: `step` of `totalSteps` (one per chunk pass, one for the decomposition). */
export interface PcaProgress {
  step: number;
  totalSteps: number;
}

function plannedPcaSteps(src: { D: number; numChunks: number }, opts: PcaOptions = {}): number {
  const passes = solverOf(src.D, opts) === "exact" ? 1 : 1 + randomizedPasses({ seed: 0, powerIterations: opts.powerIterations });
  return passes * src.numChunks + 1;
}

function solverOf(D: number, opts: PcaOptions): "exact" | "randomized" {
  return opts.solver ?? (D <= EXACT_MAX_COLUMNS ? "exact" : "randomized");
}

export function* fitPcaSteps(src: ChunkSource, opts: PcaOptions = {}): Generator<PcaProgress, PcaFit, void> {
  const { D, numRows } = src;
  const requested = opts.nComponents ?? null;
  if (requested !== null) {
    if (!Number.isInteger(requested) || requested < 1) throw new MlInputError(`n_components must be an integer ≥ 1 (got ${requested})`);
    if (requested > D) throw new MlInputError(`n_components is ${requested} but the data has only ${D} standardized feature columns`);
    if (requested > numRows) throw new MlInputError(`n_components is ${requested} but the data has only ${numRows} rows`);
  }
  if (numRows < 2) throw new MlInputError("factor analysis needs at least 2 rows");
  const solver = solverOf(D, opts);
  const totalSteps = plannedPcaSteps(src, opts);
  let step = 0;
  const progress = () => ({ step: ++step, totalSteps });
  let mean: Float64Array;
  let variance: Float64Array;
  let eig: { values: Float64Array; vectors: Float64Array };
  if (solver === "exact") {
    const pass = covariancePass(src);
    let r = pass.next();
    for (; !r.done; r = pass.next()) yield progress();
    ({ mean, variance } = r.value);
    eig = symmetricEigen(r.value.covariance, D);
  } else {
    const pass = momentsPass(src);
    let r = pass.next();
    for (; !r.done; r = pass.next()) yield progress();
    ({ mean, variance } = r.value);
    const l = Math.min(D, (requested ?? AUTO_MAX) + OVERSAMPLING);
    const rand = randomizedEigen(src, mean, l, { seed: opts.seed ?? 0, powerIterations: opts.powerIterations ?? DEFAULT_POWER_ITERATIONS });
    let q = rand.next();
    for (; !q.done; q = rand.next()) yield progress();
    eig = q.value;
  }
  const totalVariance = variance.reduce((a, b) => a + b, 0);
  if (!(totalVariance > 0)) throw new MlInputError("every standardized feature column is constant: there is no variance to explain");
  const eigenvalues = eig.values.map((v) => Math.max(0, v));
  const k = requested ?? autoComponents(eigenvalues, totalVariance, Math.min(D, numRows));
  const fit = finishFit(eig.vectors, eigenvalues, D, k, opts.rotation ?? "none");
  yield progress();
  return { D, numRows, solver, rule: requested === null ? "auto" : "requested", mean, totalVariance, eigenvalues, ...fit };
}

/**
 * Fewest leading components reaching AUTO_VARIANCE of the total, at most AUTO_MAX (and `limit`).
 * @internal exported for its unit test (test/ml/pca.test.ts)
 */
export function autoComponents(eigenvalues: ArrayLike<number>, totalVariance: number, limit: number): number {
  const cap = Math.min(AUTO_MAX, limit, eigenvalues.length);
  let cumulative = 0;
  for (let j = 0; j < cap; j++) {
    cumulative += eigenvalues[j];
    // tolerance: 0.9 exactly (e.g. 9 equal components of 10) should count as reached
    if (cumulative >= AUTO_VARIANCE * totalVariance * (1 - 1e-12)) return j + 1;
  }
  return Math.max(1, cap);
}

function finishFit(
  vectors: Float64Array,
  eigenvalues: Float64Array,
  D: number,
  k: number,
  rotation: Rotation,
): Pick<PcaFit, "components" | "loadings" | "explainedVariance" | "k" | "rotation"> {
  const sqrtL = Array.from({ length: k }, (_, j) => Math.sqrt(eigenvalues[j]));
  // loadings L [D x k] (column-major by factor here: l[d * k + j])
  const l = new Float64Array(D * k);
  for (let j = 0; j < k; j++) for (let d = 0; d < D; d++) l[d * k + j] = vectors[j * D + d] * sqrtL[j];
  const r = rotation === "varimax" && k > 1 ? varimaxRotation(l, D, k) : identity(k);
  const rotated = multiply(l, r, D, k);
  // factor variances; order by variance (rotation only; the eigenvalues are already sorted)
  const ev = new Float64Array(k);
  for (let j = 0; j < k; j++) for (let d = 0; d < D; d++) ev[j] += rotated[d * k + j] ** 2;
  const order = Array.from({ length: k }, (_, j) => j);
  if (rotation === "varimax") order.sort((a, b) => ev[b] - ev[a] || a - b);
  const tiny = 1e-12 * Math.max(eigenvalues[0], 1e-300);
  const components = new Float64Array(k * D);
  const loadings = new Float64Array(k * D);
  const explainedVariance = new Float64Array(k);
  order.forEach((src, j) => {
    explainedVariance[j] = rotation === "varimax" ? ev[src] : eigenvalues[src];
    for (let d = 0; d < D; d++) loadings[j * D + d] = rotated[d * k + src];
    // weights: Σ_i V_i R_i,src √(ev / λ_i); a zero-variance component is never mixed (R = I there)
    for (let i = 0; i < k; i++) {
      const rij = r[i * k + src];
      if (rij === 0) continue;
      const scale = eigenvalues[i] > tiny ? rij * Math.sqrt(explainedVariance[j] / eigenvalues[i]) : rij;
      for (let d = 0; d < D; d++) components[j * D + d] += vectors[i * D + d] * scale;
    }
    const sign = signOf(loadings.subarray(j * D, j * D + D), components.subarray(j * D, j * D + D));
    if (sign < 0) {
      for (let d = 0; d < D; d++) {
        loadings[j * D + d] = -loadings[j * D + d];
        components[j * D + d] = -components[j * D + d];
      }
    }
  });
  return { components, loadings, explainedVariance, k, rotation };
}

/** Sign making the largest-|loading| entry positive (the weights decide when every loading is 0). */
function signOf(loading: Float64Array, weight: Float64Array): number {
  const v = loading.some((x) => x !== 0) ? loading : weight;
  let best = 0;
  for (let d = 1; d < v.length; d++) if (Math.abs(v[d]) > Math.abs(v[best])) best = d;
  return v[best] < 0 ? -1 : 1;
}

function identity(k: number): Float64Array {
  const r = new Float64Array(k * k);
  for (let j = 0; j < k; j++) r[j * k + j] = 1;
  return r;
}

/** [D x k] · [k x k]. */
function multiply(a: Float64Array, r: Float64Array, D: number, k: number): Float64Array {
  const out = new Float64Array(D * k);
  for (let d = 0; d < D; d++) {
    for (let j = 0; j < k; j++) {
      let s = 0;
      for (let i = 0; i < k; i++) s += a[d * k + i] * r[i * k + j];
      out[d * k + j] = s;
    }
  }
  return out;
}
