/**
 * A smooth propensity model for a binary treatment: ridge logistic regression on the numeric
 * features' standardized values z_i, their squares z_i² and their pairwise products z_i·z_j.
 * Why: the GBDT propensity approximates a smooth assignment surface by steps, and where that
 * surface follows an interaction (Nie & Wager A: e = sin(π·x1·x2)) the steps leave an error
 * along the same confounder the outcome models miss, which AIPW's product-of-errors bias does not
 * forgive (bench/causal/RESULTS.md). A quadratic logit has x1·x2 in its span and is smooth; it is
 * one candidate of ./nuisance-settings' screening, chosen only when its held-out log loss beats
 * every GBDT setting's.
 *
 * Details: z is clamped to the training rows' range (new rows are extrapolated flat, as trees do);
 * a missing value is the training mean (z = 0); categorical features are left out. Each term is
 * standardized on the training rows so one ridge λ treats them alike; Newton steps on the
 * penalized log loss (intercept unpenalized).
 */
import type { FeatureMatrix } from "../../../src/ml/featurize";

export type SmoothBasis = "quadratic" | "spline";

export interface SmoothPropensityModel {
  /** Feature columns used (the numeric ones). */
  features: number[];
  /** Per used feature: training mean, sd, and the clamp range of z. */
  mean: number[];
  sd: number[];
  zMin: number[];
  zMax: number[];
  /** Basis functions: of used feature basisFeature[b], z itself (knot NaN) or max(0, z − knot). */
  basisFeature: number[];
  basisKnot: number[];
  /** Terms as pairs of basis indices: [b, -1] = basis b, [b, c] = their product. */
  terms: [number, number][];
  termMean: number[];
  termSd: number[];
  /** Intercept, then one coefficient per term (on the standardized terms). */
  beta: number[];
}

const NEWTON_STEPS = 30;
const TOLERANCE = 1e-8;
/** Spline basis: hinges at these quantiles of each feature's training z. */
const KNOT_QUANTILES = [1 / 3, 2 / 3];

/** The design row of frame row r (standardized terms) into `out`. */
function fillTerms(model: Omit<SmoothPropensityModel, "beta">, m: FeatureMatrix, r: number, z: Float64Array, out: Float64Array, raw = false) {
  const F = m.numFeatures;
  for (let i = 0; i < model.features.length; i++) {
    const v = m.data[r * F + model.features[i]];
    const zi = v === v ? (v - model.mean[i]) / model.sd[i] : 0;
    z[i] = Math.min(model.zMax[i], Math.max(model.zMin[i], zi));
  }
  const basis = (b: number) => {
    const zb = z[model.basisFeature[b]];
    const k = model.basisKnot[b];
    return k === k ? Math.max(0, zb - k) : zb;
  };
  for (let t = 0; t < model.terms.length; t++) {
    const [b, c] = model.terms[t];
    const v = c < 0 ? basis(b) : basis(b) * basis(c);
    out[t] = raw ? v : (v - model.termMean[t]) / model.termSd[t];
  }
}

/** Fits P(label = 1 | x) on `rows` (frame rows; label 0/1 per frame row) with ridge λ. */
export function fitSmoothPropensity(
  m: FeatureMatrix,
  categorical: boolean[],
  label: Float64Array,
  rows: Int32Array,
  lambda: number,
  kind: SmoothBasis = "quadratic",
): SmoothPropensityModel {
  const F = m.numFeatures;
  const features = [...Array(F).keys()].filter((f) => !categorical[f]);
  const U = features.length;
  const mean = new Array<number>(U).fill(0);
  const sd = new Array<number>(U).fill(0);
  const cnt = new Array<number>(U).fill(0);
  for (const r of rows)
    features.forEach((f, i) => {
      const v = m.data[r * F + f];
      if (v === v) {
        mean[i] += v;
        cnt[i]++;
      }
    });
  for (let i = 0; i < U; i++) mean[i] = cnt[i] > 0 ? mean[i] / cnt[i] : 0;
  for (const r of rows)
    features.forEach((f, i) => {
      const v = m.data[r * F + f];
      if (v === v) sd[i] += (v - mean[i]) ** 2;
    });
  for (let i = 0; i < U; i++) sd[i] = cnt[i] > 1 && sd[i] > 0 ? Math.sqrt(sd[i] / cnt[i]) : 1;
  const zMin = new Array<number>(U).fill(0);
  const zMax = new Array<number>(U).fill(0);
  const zs: number[][] = features.map(() => []);
  for (const r of rows)
    features.forEach((f, i) => {
      const v = m.data[r * F + f];
      if (v === v) {
        const z = (v - mean[i]) / sd[i];
        zMin[i] = Math.min(zMin[i], z);
        zMax[i] = Math.max(zMax[i], z);
        if (kind === "spline") zs[i].push(z);
      }
    });
  const basisFeature: number[] = [];
  const basisKnot: number[] = [];
  for (let i = 0; i < U; i++) {
    basisFeature.push(i);
    basisKnot.push(NaN);
    if (kind !== "spline") continue;
    const sorted = zs[i].sort((a, b) => a - b);
    const knots = new Set(KNOT_QUANTILES.map((q) => sorted[Math.floor(q * (sorted.length - 1))]));
    for (const k of knots) {
      if (!(k > zMin[i] && k < zMax[i])) continue;
      basisFeature.push(i);
      basisKnot.push(k);
    }
  }
  const B = basisFeature.length;
  const terms: [number, number][] = [];
  for (let b = 0; b < B; b++) terms.push([b, -1]);
  for (let b = 0; b < B; b++)
    for (let c = b; c < B; c++) {
      const same = basisFeature[b] === basisFeature[c];
      // quadratic: z_i², z_i·z_j; spline: products across features only (a feature's own curve is its hinges)
      if (kind === "quadratic" ? !same || b === c : !same) terms.push([b, c]);
    }
  const T = terms.length;
  const partial = {
    features,
    mean,
    sd,
    zMin,
    zMax,
    basisFeature,
    basisKnot,
    terms,
    termMean: new Array<number>(T).fill(0),
    termSd: new Array<number>(T).fill(1),
  };
  // the design matrix, standardized per term
  const n = rows.length;
  const X = new Float64Array(n * T);
  const z = new Float64Array(U);
  const out = new Float64Array(T);
  rows.forEach((r, k) => {
    fillTerms(partial, m, r, z, out, true);
    X.set(out, k * T);
  });
  for (let t = 0; t < T; t++) {
    let s = 0;
    for (let k = 0; k < n; k++) s += X[k * T + t];
    const mu = s / n;
    let ss = 0;
    for (let k = 0; k < n; k++) ss += (X[k * T + t] - mu) ** 2;
    const sdt = ss > 0 ? Math.sqrt(ss / n) : 1;
    partial.termMean[t] = mu;
    partial.termSd[t] = sdt;
    for (let k = 0; k < n; k++) X[k * T + t] = (X[k * T + t] - mu) / sdt;
  }
  const y = Float64Array.from(rows, (r) => label[r]);
  const beta = newtonLogistic(X, y, n, T, lambda);
  return { ...partial, beta: [...beta] };
}

/** Penalized logistic regression (intercept first, then T coefficients) by damped Newton steps. */
function newtonLogistic(X: Float64Array, y: Float64Array, n: number, T: number, lambda: number): Float64Array {
  const P = T + 1;
  const beta = new Float64Array(P);
  let ybar = 0;
  for (const v of y) ybar += v;
  ybar = Math.min(1 - 1e-6, Math.max(1e-6, ybar / n));
  beta[0] = Math.log(ybar / (1 - ybar));
  const objective = (b: Float64Array) => {
    let s = 0;
    for (let k = 0; k < n; k++) {
      let eta = b[0];
      for (let t = 0; t < T; t++) eta += b[t + 1] * X[k * T + t];
      // log(1 + e^eta) − y·eta, stable
      s += (eta > 0 ? eta + Math.log1p(Math.exp(-eta)) : Math.log1p(Math.exp(eta))) - y[k] * eta;
    }
    for (let t = 1; t < P; t++) s += 0.5 * lambda * b[t] * b[t];
    return s;
  };
  let current = objective(beta);
  const H = new Float64Array(P * P);
  const g = new Float64Array(P);
  for (let step = 0; step < NEWTON_STEPS; step++) {
    H.fill(0);
    g.fill(0);
    for (let k = 0; k < n; k++) {
      let eta = beta[0];
      for (let t = 0; t < T; t++) eta += beta[t + 1] * X[k * T + t];
      const p = 1 / (1 + Math.exp(-eta));
      const w = Math.max(p * (1 - p), 1e-10);
      const resid = p - y[k];
      g[0] += resid;
      H[0] += w;
      for (let a = 0; a < T; a++) {
        const xa = X[k * T + a];
        g[a + 1] += resid * xa;
        H[a + 1] += w * xa;
        const row = (a + 1) * P;
        for (let b = 0; b <= a; b++) H[row + b + 1] += w * xa * X[k * T + b];
      }
    }
    for (let a = 1; a < P; a++) {
      for (let b = 1; b < a; b++) H[b * P + a] = H[a * P + b];
      H[a * P + 0] = H[a];
      g[a] += lambda * beta[a];
      H[a * P + a] += lambda;
    }
    const d = choleskySolve(H, g, P);
    // damped: halve the step until the penalized loss does not rise
    let scale = 1;
    const trial = new Float64Array(P);
    let next = current;
    for (let h = 0; h < 30; h++) {
      for (let a = 0; a < P; a++) trial[a] = beta[a] - scale * d[a];
      next = objective(trial);
      if (next <= current) break;
      scale /= 2;
    }
    if (!(next <= current)) break;
    beta.set(trial);
    const gain = current - next;
    current = next;
    if (gain < TOLERANCE * Math.max(1, Math.abs(current))) break;
  }
  return beta;
}

/** Solves A x = b for symmetric positive-definite A (row-major P × P). */
function choleskySolve(A: Float64Array, b: Float64Array, P: number): Float64Array {
  const L = new Float64Array(P * P);
  for (let i = 0; i < P; i++) {
    for (let j = 0; j <= i; j++) {
      let s = A[i * P + j];
      for (let k = 0; k < j; k++) s -= L[i * P + k] * L[j * P + k];
      L[i * P + j] = i === j ? Math.sqrt(Math.max(s, 1e-12)) : s / L[j * P + j];
    }
  }
  const x = Float64Array.from(b);
  for (let i = 0; i < P; i++) {
    let s = x[i];
    for (let k = 0; k < i; k++) s -= L[i * P + k] * x[k];
    x[i] = s / L[i * P + i];
  }
  for (let i = P - 1; i >= 0; i--) {
    let s = x[i];
    for (let k = i + 1; k < P; k++) s -= L[k * P + i] * x[k];
    x[i] = s / L[i * P + i];
  }
  return x;
}

/** P(label = 1 | x) on `rows` (frame rows of `m`). */
export function predictSmoothPropensity(model: SmoothPropensityModel, m: FeatureMatrix, rows: Int32Array): Float64Array {
  const z = new Float64Array(model.features.length);
  const out = new Float64Array(model.terms.length);
  return Float64Array.from(rows, (r) => {
    fillTerms(model, m, r, z, out);
    let eta = model.beta[0];
    for (let t = 0; t < out.length; t++) eta += model.beta[t + 1] * out[t];
    return 1 / (1 + Math.exp(-eta));
  });
}
