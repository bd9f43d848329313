/**
 * Where the AIPW average effect's bias on Nie & Wager C (and A) comes from: per seed, the mean of
 * φ with the cross-fitted μ̂ and ê (what the engine reports), with the true propensity in place of
 * ê, with the true outcome surfaces in place of μ̂, and with ê unclipped; each against the sample
 * ATE, with the interval mean ± 1.96·sd(φ)/√n. Needs ./capture-hook.patch:
 *
 *   git apply bench/causal/selection/capture-hook.patch
 *   npx tsx bench/causal/selection/aipw-oracle.ts <A|C> <first seed> <seeds>
 */
import { trainCausalSteps } from "../../../src/ml/causal/model";
import { buildRepresentation } from "../../../src/ml/representation/representation";
import { nieWager } from "../benchmarks";

const [setup, firstArg, seedsArg] = process.argv.slice(2) as ["A" | "C", string, string];
let captured: any = null;
(globalThis as any).__causalInput = (v: unknown) => (captured = v);
const softplus = (v: number) => Math.log1p(Math.exp(v));

/** True baseline b(x) and propensity e(x) of the setup (./benchmarks nieWager). */
function truth(x: number[]): { b: number; e: number; tau: number } {
  if (setup === "A")
    return {
      b: Math.sin(Math.PI * x[0] * x[1]) + 2 * (x[2] - 0.5) ** 2 + x[3] + 0.5 * x[4],
      e: Math.min(0.9, Math.max(0.1, Math.sin(Math.PI * x[0] * x[1]))),
      tau: (x[0] + x[1]) / 2,
    };
  return { b: 2 * softplus(x[0] + x[1] + x[2]), e: 1 / (1 + Math.exp(x[1] + x[2])), tau: 1 };
}

const VARIANTS = ["engine", "true e", "true mu", "unclipped"] as const;
const covered = Object.fromEntries(VARIANTS.map((v) => [v, 0]));
const bias = Object.fromEntries(VARIANTS.map((v) => [v, 0]));
const seeds = Number(seedsArg);
for (let seed = Number(firstArg); seed < Number(firstArg) + seeds; seed++) {
  const b = nieWager(setup, 1000, seed);
  const gen = trainCausalSteps(b.frame, {
    representation: buildRepresentation(b.frame),
    labelColumn: "y",
    params: { learner: "t", action_column: "treated" },
  });
  while (!gen.next().done);
  const col = (name: string) => (b.frame.columns.find((c) => c.name === name) as any).values as Float64Array;
  const X = [1, 2, 3, 4, 5, 6].map((j) => col(`x${j}`));
  const t = col("treated");
  const y = col("y");
  const { cf, rows } = captured as { cf: { mu: Float64Array; e: Float64Array }; rows: Int32Array };
  const sampleAte = b.tau.reduce((s, v) => s + v, 0) / b.tau.length;
  for (const v of VARIANTS) {
    const phi = Array.from(rows as Int32Array, (r: number, j: number) => {
      const tr = truth(X.map((c) => c[r]));
      let mu0 = cf.mu[j * 2];
      let mu1 = cf.mu[j * 2 + 1];
      if (v === "true mu") {
        mu0 = tr.b - 0.5 * tr.tau;
        mu1 = tr.b + 0.5 * tr.tau;
      }
      let e = v === "true e" ? tr.e : cf.e[j * 2 + 1];
      if (v !== "unclipped") e = Math.min(0.99, Math.max(0.01, e));
      return mu1 - mu0 + (t[r] === 1 ? (y[r] - mu1) / e : -(y[r] - mu0) / (1 - e));
    });
    const m = phi.reduce((s, p) => s + p, 0) / phi.length;
    const se = Math.sqrt(phi.reduce((s, p) => s + (p - m) ** 2, 0) / (phi.length - 1) / phi.length);
    if (Math.abs(m - sampleAte) <= 1.959964 * se) covered[v]++;
    bias[v] += (m - sampleAte) / seeds;
  }
}
console.log(`| setup | seeds | ${VARIANTS.map((v) => `${v}: coverage, bias`).join(" | ")} |`);
console.log(`|---|---|${VARIANTS.map(() => "---|").join("")}`);
console.log(
  `| ${setup} | ${seeds} | ${VARIANTS.map((v) => `${(covered[v] / seeds).toFixed(2)}, ${bias[v] >= 0 ? "+" : ""}${bias[v].toFixed(3)}`).join(" | ")} |`,
);
