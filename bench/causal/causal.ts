/**
 * Causal benchmark: the engine's cross-fitted AIPW learner against scikit-learn baselines
 * (./reference.py: naive difference in means, T-learner and S-learner on HistGradientBoosting),
 * on generated data with known effects (./data: confounded assignment, heterogeneous effect
 * τ = effect + het · x2). Both sides read the same numbers (raw float64 file).
 *
 *   npx tsx bench/causal/causal.ts [--quick] [--coverage-only]
 *
 * Reports per setup: ATE relative error, 95% interval coverage over seeds (ours) against the
 * population ATE (what the AIPW interval is for) and against the sample ATE, PEHE (RMSE of the
 * per-row effect) of ours, the T- and S-learner, and fit seconds (ours excludes the shared
 * representation, which the service builds once per dataset).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CausalModel, predictCausal, trainCausalSteps } from "../../src/ml/causal/model";
import type { NumericColumn } from "../../src/ml/frame";
import { buildRepresentation } from "../../src/ml/representation/representation";
import { type CausalDataOptions, causalData, populationAte } from "./data";

interface Setup {
  name: string;
  data: Omit<CausalDataOptions, "n" | "seed">;
}

const SETUPS: Setup[] = [
  { name: "confounded, heterogeneous, numeric", data: { effect: 1, heterogeneity: 1, confounding: 1 } },
  { name: "confounded, heterogeneous, binary outcome", data: { effect: 1, heterogeneity: 1, confounding: 1, binary: true } },
  { name: "no confounding, numeric", data: { effect: 1, heterogeneity: 1, confounding: 0 } },
  { name: "poor overlap (strong confounding), numeric", data: { effect: 1, heterogeneity: 1, confounding: 3 } },
];

const quick = process.argv.includes("--quick");
const coverageOnly = process.argv.includes("--coverage-only");
const COVERAGE_SEEDS = quick ? 10 : 50;
const COVERAGE_ROWS = 2000;
const COMPARE: [number, number][] = quick
  ? [
      [2000, 1],
      [20000, 1],
    ]
  : [
      [2000, 3],
      [20000, 3],
      [200000, 1],
    ];
const dir = mkdtempSync(join(tmpdir(), "causal-bench-"));

const PY = "/usr/bin/python3";

/** The reference needs Debian's numpy and scikit-learn: installed through apt when missing. */
function ensurePython(): void {
  const ok = () => spawnSync(PY, ["-c", "import sklearn, numpy"], { stdio: "ignore" }).status === 0;
  if (ok()) return;
  console.error("installing python3-sklearn python3-numpy with apt-get ...");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update"], { stdio: "ignore", env });
  execFileSync("apt-get", ["install", "-y", "python3-sklearn", "python3-numpy"], { stdio: "ignore", env });
  if (!ok()) throw new Error(`${PY} still lacks sklearn/numpy`);
}

function trainOnce(frame: ReturnType<typeof causalData>["frame"]): { model: CausalModel; seconds: number } {
  const rep = buildRepresentation(frame);
  const t0 = performance.now();
  const gen = trainCausalSteps(frame, { representation: rep, labelColumn: "y", params: {} });
  for (;;) {
    const r = gen.next();
    if (r.done) return { model: r.value, seconds: (performance.now() - t0) / 1000 };
  }
}

function reference(d: ReturnType<typeof causalData>, binary: boolean): Record<string, { ate: number; pehe: number | null; seconds: number }> {
  const n = d.frame.rowCount;
  const col = (name: string) => {
    const c = d.frame.columns.find((x) => x.name === name)!;
    return c.storage === "numeric" ? (c as NumericColumn).values : Float64Array.from(c.codes);
  };
  const cols = [col("x1"), col("x2"), col("c"), col("treated"), col("y"), d.tau];
  const a = new Float64Array(n * 7);
  for (let i = 0; i < n; i++) for (let j = 0; j < 6; j++) a[i * 7 + j] = cols[j][i];
  const file = join(dir, "data.bin");
  writeFileSync(file, Buffer.from(a.buffer));
  const env = { ...process.env, OMP_NUM_THREADS: "1", OPENBLAS_NUM_THREADS: "1", MKL_NUM_THREADS: "1" };
  const out = execFileSync(PY, [join(import.meta.dirname, "reference.py"), file, binary ? "binary" : "numeric"], { env });
  return JSON.parse(out.toString());
}

const fmt = (x: number, d = 3) => (Number.isFinite(x) ? x.toFixed(d) : String(x));
const mean = (xs: number[]) => xs.reduce((s, v) => s + v, 0) / xs.length;

const sd = (xs: number[]) => Math.sqrt(xs.reduce((s, v) => s + (v - mean(xs)) ** 2, 0) / (xs.length - 1));

console.log(`## Coverage: ${COVERAGE_SEEDS} seeds × ${COVERAGE_ROWS} rows (ours)\n`);
console.log(
  "| setup | population ATE | ATE rel. error (vs sample ATE) | coverage: population ATE | coverage: sample ATE | mean CI half-width | sd of estimates / mean std error | naive: rel. error | clipped share |",
);
console.log("|---|---|---|---|---|---|---|---|---|");
for (const s of SETUPS) {
  const rel: number[] = [];
  const naive: number[] = [];
  const half: number[] = [];
  const se: number[] = [];
  const est: number[] = [];
  const clipped: number[] = [];
  let coveredPop = 0;
  let coveredSample = 0;
  const pop = populationAte(s.data);
  for (let seed = 0; seed < COVERAGE_SEEDS; seed++) {
    const d = causalData({ n: COVERAGE_ROWS, seed: 1000 + seed, ...s.data });
    const o = trainOnce(d.frame).model.output as {
      ate: number;
      std_error: number;
      ci_low: number;
      ci_high: number;
      clipped_share: number;
      estimates: { naive_difference: number }[];
    };
    rel.push(Math.abs(o.ate - d.ate) / Math.abs(d.ate));
    naive.push(Math.abs(o.estimates[0].naive_difference - d.ate) / Math.abs(d.ate));
    half.push((o.ci_high - o.ci_low) / 2);
    se.push(o.std_error);
    est.push(o.ate);
    clipped.push(o.clipped_share);
    if (o.ci_low <= pop && pop <= o.ci_high) coveredPop++;
    if (o.ci_low <= d.ate && d.ate <= o.ci_high) coveredSample++;
  }
  console.log(
    `| ${s.name} | ${fmt(pop, 4)} | ${fmt(mean(rel))} | ${fmt(coveredPop / COVERAGE_SEEDS, 2)} | ${fmt(coveredSample / COVERAGE_SEEDS, 2)} | ${fmt(mean(half))} | ${fmt(sd(est) / mean(se), 2)} | ${fmt(mean(naive))} | ${fmt(mean(clipped))} |`,
  );
}
if (coverageOnly) process.exit(0);
ensurePython();

console.log("\n## Side by side with scikit-learn (mean over seeds)\n");
console.log("| setup | rows | seeds | ATE rel. err: ours / T / S / naive | PEHE: ours / T / S | PEHE ratio ours/T | fit s: ours / T+S |");
console.log("|---|---|---|---|---|---|---|");
for (const [n, seeds] of COMPARE) {
  for (const s of SETUPS) {
    if (n > 20000 && s !== SETUPS[0]) continue;
    const acc = {
      ours: [] as number[],
      t: [] as number[],
      s: [] as number[],
      naive: [] as number[],
      pOurs: [] as number[],
      pT: [] as number[],
      pS: [] as number[],
      sec: [] as number[],
      secRef: [] as number[],
    };
    for (let seed = 0; seed < seeds; seed++) {
      const d = causalData({ n, seed: 2000 + seed, ...s.data });
      const { model, seconds } = trainOnce(d.frame);
      const eff = predictCausal(model.predictor, d.frame).effect;
      let pe = 0;
      for (let i = 0; i < n; i++) pe += (eff[i] - d.tau[i]) ** 2;
      const ref = reference(d, !!s.data.binary);
      const re = (x: number) => Math.abs(x - d.ate) / Math.abs(d.ate);
      acc.ours.push(re(model.output.ate as number));
      acc.t.push(re(ref.t_learner.ate));
      acc.s.push(re(ref.s_learner.ate));
      acc.naive.push(re(ref.naive.ate));
      acc.pOurs.push(Math.sqrt(pe / n));
      acc.pT.push(ref.t_learner.pehe!);
      acc.pS.push(ref.s_learner.pehe!);
      acc.sec.push(seconds);
      acc.secRef.push(ref.t_learner.seconds + ref.s_learner.seconds);
    }
    console.log(
      `| ${s.name} | ${n} | ${seeds} | ${fmt(mean(acc.ours))} / ${fmt(mean(acc.t))} / ${fmt(mean(acc.s))} / ${fmt(mean(acc.naive))} | ${fmt(mean(acc.pOurs))} / ${fmt(mean(acc.pT))} / ${fmt(mean(acc.pS))} | ${fmt(mean(acc.pOurs) / mean(acc.pT), 2)} | ${fmt(Math.min(...acc.sec), 2)} / ${fmt(Math.min(...acc.secRef), 2)} |`,
    );
  }
}
