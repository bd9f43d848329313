/**
 * Synthetic causal data with known effects: x1, x2 uniform on [-1, 1], a category c; treatment
 * assigned with P(T=1) = sigmoid(confounding · 2 · x1) (x1 also raises the outcome, so the naive
 * difference is biased upward when confounded); outcome Y = 2·x1 + x2 + τ(x)·T + noise, or
 * binary with P(Y=1) = sigmoid(x1 + τ(x)·T). τ(x) = effect + heterogeneity · x2.
 */
import type { Frame } from "../../src/ml/frame";
import { Rng } from "../../src/ml/random";

export interface CausalData {
  frame: Frame;
  /** True per-row effect (probability scale for binary outcomes). */
  tau: Float64Array;
  /** Mean of tau over the rows (the sample ATE). */
  ate: number;
  /** E[τ(x)] over the generating distribution (the population ATE): see populationAte. */
  populationAte: number;
}

export interface CausalDataOptions {
  n: number;
  seed: number;
  effect?: number;
  heterogeneity?: number;
  confounding?: number;
  binary?: boolean;
  noise?: number;
  treatmentName?: string;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

function normal(rng: Rng): number {
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}

export function causalData(o: CausalDataOptions): CausalData {
  const rng = new Rng(o.seed);
  const n = o.n;
  const x1 = new Float64Array(n);
  const x2 = new Float64Array(n);
  const c = new Int32Array(n);
  const t = new Float64Array(n);
  const y = new Float64Array(n);
  const tau = new Float64Array(n);
  const effect = o.effect ?? 2;
  const het = o.heterogeneity ?? 0;
  const conf = o.confounding ?? 1;
  for (let i = 0; i < n; i++) {
    x1[i] = 2 * rng.next() - 1;
    x2[i] = 2 * rng.next() - 1;
    c[i] = rng.int(3);
    t[i] = rng.next() < sigmoid(conf * 2 * x1[i]) ? 1 : 0;
    const ti = effect + het * x2[i];
    if (o.binary) {
      const p0 = sigmoid(x1[i]);
      const p1 = sigmoid(x1[i] + ti);
      tau[i] = p1 - p0;
      y[i] = rng.next() < (t[i] ? p1 : p0) ? 1 : 0;
    } else {
      tau[i] = ti;
      y[i] = 2 * x1[i] + x2[i] + 0.3 * (c[i] - 1) + ti * t[i] + (o.noise ?? 1) * normal(rng);
    }
  }
  const frame: Frame = {
    rowCount: n,
    columns: [
      { name: "id", kind: "id", storage: "numeric", values: Float64Array.from({ length: n }, (_, i) => i + 1) },
      { name: "x1", kind: "numeric", storage: "numeric", values: x1 },
      { name: "x2", kind: "numeric", storage: "numeric", values: x2 },
      { name: "c", kind: "categorical", storage: "dictionary", codes: c, dictionary: ["a", "b", "d"] },
      { name: o.treatmentName ?? "treated", kind: "numeric", storage: "numeric", values: t },
      { name: "y", kind: o.binary ? "numeric" : "numeric", storage: "numeric", values: y },
    ],
  };
  return { frame, tau, ate: tau.reduce((s, v) => s + v, 0) / n, populationAte: populationAte(o) };
}

const softplus = (z: number) => (z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z)));

/**
 * The population ATE E[τ(x)], x1, x2 ~ U[-1, 1] (c does not enter τ). Numeric: effect + het·E[x2]
 * = effect. Binary: τ = sigmoid(x1 + effect + het·x2) − sigmoid(x1); the x2 mean is analytic
 * (∫ sigmoid = softplus), the x1 mean by composite Simpson on 2000 intervals (error ~1e-14).
 */
export function populationAte(o: Omit<CausalDataOptions, "n" | "seed">): number {
  const effect = o.effect ?? 2;
  const het = o.heterogeneity ?? 0;
  if (!o.binary) return effect;
  const inner = (x1: number) => {
    const b = x1 + effect;
    const treated = het === 0 ? sigmoid(b) : (softplus(b + het) - softplus(b - het)) / (2 * het);
    return treated - sigmoid(x1);
  };
  const m = 2000;
  const h = 2 / m;
  let acc = inner(-1) + inner(1);
  for (let i = 1; i < m; i++) acc += (i % 2 ? 4 : 2) * inner(-1 + i * h);
  // (h/3)·Σ is the integral over [-1, 1]; the mean divides by the length 2
  return (acc * h) / 3 / 2;
}
