/**
 * Published benchmarks with known effects, as frames with each row's true effect:
 * - IHDP (Hill 2011, J. Comput. Graph. Stat. 20(1)): the Infant Health and Development Program's
 *   747 children and 25 covariates, treated group made unbalanced by removing non-white mothers'
 *   treated children, simulated outcomes of the NPCI package's response surface B (exponential
 *   control surface, linear treated one); the 10 replications of ./ihdp/ (the CSVs of Louizos et
 *   al.'s CEVAE repository, columns: treatment, y_factual, y_cfactual, mu0, mu1, x1..x25; the true
 *   effect is mu1 − mu0; gzipped as they are, from the repository's commit 9081f86; not kept
 *   here, since that repository carries no licence: put them in ./ihdp/ to run the suite). The same setting as Shalit, Johansson & Sontag (ICML 2017), who use 1000
 *   replications of it.
 * - Nie & Wager (2021, Biometrika 108(2), "Quasi-oracle estimation of heterogeneous treatment
 *   effects", §6) setups A–D: Y = b(X) + (W − 0.5)·τ(X) + σ·ε, generated here (d = 6, σ = 1):
 *   A: X ~ U[0,1]^d, b = sin(πX1X2) + 2(X3 − 0.5)² + X4 + 0.5·X5, e = sin(πX1X2) trimmed to
 *      [0.1, 0.9], τ = (X1 + X2)/2 (hard nuisance, easy effect);
 *   B: X ~ N(0, I), b = max(X1 + X2, X3, 0) + max(X4 + X5, 0), e = 0.5, τ = X1 + log(1 + e^X2)
 *      (randomized trial);
 *   C: X ~ N(0, I), b = 2·log(1 + e^(X1+X2+X3)), e = 1/(1 + e^(X2+X3)), τ = 1 (strong
 *      confounding, poor overlap: X2 + X3 ~ N(0, 2));
 *   D: X ~ N(0, I), b = (max(X1+X2+X3, 0) + max(X4+X5, 0))/2, e = 1/(1 + e^−X1 + e^−X2),
 *      τ = max(X1+X2+X3, 0) − max(X4+X5, 0) (unrelated arms).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { Frame } from "../../src/ml/frame";
import { Rng } from "../../src/ml/random";

export interface Benchmark {
  frame: Frame;
  /** Each row's true effect. */
  tau: Float64Array;
}

const numeric = (name: string, values: Float64Array) => ({ name, kind: "numeric" as const, storage: "numeric" as const, values });

/** IHDP replication `rep` (1..10). */
export function ihdp(rep: number): Benchmark {
  const text = gunzipSync(readFileSync(join(import.meta.dirname, "ihdp", `ihdp_npci_${rep}.csv.gz`))).toString();
  const lines = text.trim().split("\n");
  const n = lines.length;
  const cols = Array.from({ length: 30 }, () => new Float64Array(n));
  lines.forEach((line, i) => line.split(",").forEach((v, j) => (cols[j][i] = Number(v))));
  const tau = Float64Array.from({ length: n }, (_, i) => cols[4][i] - cols[3][i]);
  const frame: Frame = {
    rowCount: n,
    columns: [...cols.slice(5).map((v, j) => numeric(`x${j + 1}`, v)), numeric("treated", cols[0]), numeric("y", cols[1])],
  };
  return { frame, tau };
}

export type NieWagerSetup = "A" | "B" | "C" | "D";

const softplus = (z: number) => (z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z)));
const pos = (z: number) => Math.max(z, 0);

/** Nie & Wager setup `setup` with n rows, d = 6, σ = 1. */
export function nieWager(setup: NieWagerSetup, n: number, seed: number): Benchmark {
  const d = 6;
  const rng = new Rng(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
  const X = Array.from({ length: d }, () => new Float64Array(n));
  const w = new Float64Array(n);
  const y = new Float64Array(n);
  const tau = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = X.map((col) => (col[i] = setup === "A" ? rng.next() : normal()));
    let b: number;
    let e: number;
    if (setup === "A") {
      b = Math.sin(Math.PI * x[0] * x[1]) + 2 * (x[2] - 0.5) ** 2 + x[3] + 0.5 * x[4];
      e = Math.min(0.9, Math.max(0.1, Math.sin(Math.PI * x[0] * x[1])));
      tau[i] = (x[0] + x[1]) / 2;
    } else if (setup === "B") {
      b = Math.max(x[0] + x[1], x[2], 0) + pos(x[3] + x[4]);
      e = 0.5;
      tau[i] = x[0] + softplus(x[1]);
    } else if (setup === "C") {
      b = 2 * softplus(x[0] + x[1] + x[2]);
      e = 1 / (1 + Math.exp(x[1] + x[2]));
      tau[i] = 1;
    } else {
      b = (pos(x[0] + x[1] + x[2]) + pos(x[3] + x[4])) / 2;
      e = 1 / (1 + Math.exp(-x[0]) + Math.exp(-x[1]));
      tau[i] = pos(x[0] + x[1] + x[2]) - pos(x[3] + x[4]);
    }
    w[i] = rng.next() < e ? 1 : 0;
    y[i] = b + (w[i] - 0.5) * tau[i] + normal();
  }
  const frame: Frame = { rowCount: n, columns: [...X.map((v, j) => numeric(`x${j + 1}`, v)), numeric("treated", w), numeric("y", y)] };
  return { frame, tau };
}
