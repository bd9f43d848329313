/**
 * Benchmark of the `factors` engine (src/ml/factors) against scikit-learn's PCA, same run, same
 * matrices: each dataset's standardized matrix (src/ml/space/space) is written as raw
 * float64, fitted by both sides single-threaded, fastest of `--repeats` fits kept.
 *
 * Measured: explained variance ratios (all D on the exact path; the first k on the randomized
 * one) and the first k components after sign alignment, as max abs differences to
 * PCA(svd_solver="full"); fit time ratios. A wide generated matrix (> 500 columns) runs the
 * randomized solver, compared with sklearn's randomized and full solvers; the exact solver is
 * forced on it too, for the timing. Two of them: dense Gaussian (10 planted factors, the last at
 * the noise edge: our worst case, no zeros to skip) and a generated table of 30 categorical and 20
 * numeric columns through the real pipeline (one-hot, 530 columns, mostly zeros).
 *
 *   npx tsx bench/unsupervised/factors.ts [--datasets diamonds,shuttle] [--repeats 3] [--no-wide]
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { matrixSource } from "../../src/ml/factors/passes";
import { fitPcaSteps, type PcaFit, type PcaOptions } from "../../src/ml/factors/pca";
import { applyFeaturizer } from "../../src/ml/featurize";
import type { Column, Frame } from "../../src/ml/frame";
import { Rng } from "../../src/ml/random";
import { buildRepresentation } from "../../src/ml/representation/representation";
import { standardize, standardSpace } from "../../src/ml/space/space";
import { trainFactorsSteps } from "../../src/ml/unsupervised/factors";
import { loadBenchDataset } from "../../test/ml/helpers/bench-data";

const REAL = ["diamonds", "cps1988", "fertility", "shuttle", "lending_club"];
const TMP = "/tmp/factors-bench";
const PY = "/usr/bin/python3";

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const repeats = Number(opt("repeats") ?? 3);
const datasets = (opt("datasets") ?? REAL.join(",")).split(",").filter(Boolean);
const wide = !args.includes("--no-wide");

interface Job {
  name: string;
  path: string;
  rows: number;
  cols: number;
  k: number;
  solvers: ("full" | "randomized")[];
  repeats: number;
}
interface RefFit {
  fit_s: number;
  ratio: number[];
  variance: number[];
  components: number[][];
}

function drive(x: Float64Array, rows: number, D: number, opts: PcaOptions): PcaFit {
  const steps = fitPcaSteps(matrixSource(x, rows, D), opts);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

function bestOf<T>(fn: () => T): { seconds: number; value: T } {
  let seconds = Infinity;
  let value!: T;
  for (let i = 0; i < repeats; i++) {
    const t = performance.now();
    value = fn();
    seconds = Math.min(seconds, (performance.now() - t) / 1000);
  }
  return { seconds, value };
}

/** Max |a − b| over the first k components, each sign-aligned by its dot product. */
function componentDiffs(fit: PcaFit, ref: number[][], k: number): number[] {
  const D = fit.D;
  return Array.from({ length: k }, (_, j) => {
    const c = fit.components.subarray(j * D, (j + 1) * D);
    const dot = c.reduce((s, v, d) => s + v * ref[j][d], 0);
    const sign = dot < 0 ? -1 : 1;
    return c.reduce((m, v, d) => Math.max(m, Math.abs(v - sign * ref[j][d])), 0);
  });
}

const ratiosOf = (fit: PcaFit, count: number) => Array.from(fit.eigenvalues.subarray(0, count), (v) => v / fit.totalVariance);
const maxDiff = (a: number[], b: number[]) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);
/** Smallest relative gap between neighbouring eigenvalues among the first k + 1 (components are as well defined as this). */
function minGap(values: ArrayLike<number>, k: number): number {
  let g = Infinity;
  for (let j = 0; j < Math.min(k, values.length - 1); j++) g = Math.min(g, (values[j] - values[j + 1]) / values[0]);
  return g;
}
const e = (x: number) => x.toExponential(1);
const f = (x: number, d = 3) => x.toFixed(d);

/** Low-rank signal (10 factors, variances 20·0.7^j) plus unit noise: factors 8-10 sit at the noise edge. */
function wideMatrix(rows: number, D: number, seed: number): Float64Array {
  const rng = new Rng(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
  const r = 10;
  const a = Float64Array.from({ length: r * D }, gauss);
  for (let j = 0; j < r; j++) {
    let n = 0;
    for (let d = 0; d < D; d++) n += a[j * D + d] ** 2;
    const s = Math.sqrt((20 * 0.7 ** j) / n);
    for (let d = 0; d < D; d++) a[j * D + d] *= s;
  }
  const x = new Float64Array(rows * D);
  const z = new Float64Array(r);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < r; j++) z[j] = gauss();
    for (let d = 0; d < D; d++) {
      let v = gauss();
      for (let j = 0; j < r; j++) v += z[j] * a[j * D + d];
      x[i * D + d] = v;
    }
  }
  return x;
}

/**
 * A table like the service's wide ones: 30 categorical columns of 20 levels (one-hot: 17 slots
 * each with "other") and 20 numeric ones, all driven by 3 latent factors plus noise.
 */
function oneHotFrame(rows: number, seed: number): Frame {
  const rng = new Rng(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
  const z = Array.from({ length: rows }, () => [gauss(), gauss(), gauss()]);
  const columns: Column[] = [];
  for (let c = 0; c < 30; c++) {
    const w = [gauss(), gauss(), gauss()];
    const codes = Int32Array.from(z, (zi) => {
      const s = zi[0] * w[0] + zi[1] * w[1] + zi[2] * w[2] + gauss();
      return Math.max(0, Math.min(19, Math.floor(10 + 3 * s)));
    });
    columns.push({ name: `cat${c}`, kind: "categorical", storage: "dictionary", codes, dictionary: Array.from({ length: 20 }, (_, v) => `v${v}`) });
  }
  for (let c = 0; c < 20; c++) {
    const w = [gauss(), gauss(), gauss()];
    const values = Float64Array.from(z, (zi) => zi[0] * w[0] + zi[1] * w[1] + zi[2] * w[2] + gauss());
    columns.push({ name: `num${c}`, kind: "numeric", storage: "numeric", values });
  }
  return { rowCount: rows, columns };
}

mkdirSync(TMP, { recursive: true });
const jobs: Job[] = [];
const mine: Record<string, { fit: PcaFit; seconds: number; endToEnd?: number; exact?: { fit: PcaFit; seconds: number } }> = {};
for (const name of datasets) {
  const { frame } = loadBenchDataset(name);
  const rep = buildRepresentation(frame);
  const space = standardSpace(rep);
  const m = applyFeaturizer(space.featurizer, frame);
  const x = standardize(space, m);
  const path = join(TMP, `${name}.f64`);
  writeFileSync(path, new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
  const run = bestOf(() => drive(x, m.numRows, space.D, {}));
  const e2e = bestOf(() => {
    const steps = trainFactorsSteps(frame, { representation: rep, params: {} });
    for (let r = steps.next(); !r.done; r = steps.next());
  });
  mine[name] = { fit: run.value, seconds: run.seconds, endToEnd: e2e.seconds };
  jobs.push({ name, path, rows: m.numRows, cols: space.D, k: run.value.k, solvers: ["full"], repeats });
  console.error(`${name}: ${m.numRows} x ${space.D}, k=${run.value.k}, ${f(run.seconds)} s`);
}
function addWide(name: string, x: Float64Array, rows: number, D: number): void {
  const path = join(TMP, `${name}.f64`);
  writeFileSync(path, new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
  const run = bestOf(() => drive(x, rows, D, {}));
  const exact = bestOf(() => drive(x, rows, D, { solver: "exact" }));
  mine[name] = { fit: run.value, seconds: run.seconds, exact: { fit: exact.value, seconds: exact.seconds } };
  jobs.push({ name, path, rows, cols: D, k: run.value.k, solvers: ["full", "randomized"], repeats });
  console.error(`${name}: ${rows} x ${D}, k=${run.value.k}, randomized ${f(run.seconds)} s, exact ${f(exact.seconds)} s`);
}
const WIDE = ["wide_dense", "wide_onehot"];
if (wide) {
  addWide("wide_dense", wideMatrix(4000, 800, 7), 4000, 800);
  const frame = oneHotFrame(20000, 8);
  const space = standardSpace(buildRepresentation(frame));
  const m = applyFeaturizer(space.featurizer, frame);
  addWide("wide_onehot", standardize(space, m), m.numRows, space.D);
}

writeFileSync(join(TMP, "manifest.json"), JSON.stringify(jobs));
const env = { ...process.env, OMP_NUM_THREADS: "1", OPENBLAS_NUM_THREADS: "1", MKL_NUM_THREADS: "1" };
const ref = JSON.parse(
  execFileSync(PY, ["bench/unsupervised/factors_reference.py", join(TMP, "manifest.json")], { env, maxBuffer: 1 << 28 }).toString(),
) as { versions: Record<string, string>; results: Record<string, Record<string, RefFit>> };

const lines: string[] = [];
lines.push(`scikit-learn ${ref.versions.sklearn}, numpy ${ref.versions.numpy}; Node ${process.version}; best of ${repeats}.`, "");
lines.push(
  "| data | rows x D | k | max abs diff ratio (all D) | max abs diff components (first k) | min eigen gap / λ1 | fit s ours | fit s sklearn full | time ratio ours/sklearn | end-to-end s (train) |",
);
lines.push("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const job of jobs.filter((j) => !WIDE.includes(j.name))) {
  const ours = mine[job.name];
  const full = ref.results[job.name].full;
  const ratioDiff = maxDiff(ratiosOf(ours.fit, job.cols), full.ratio);
  const comp = Math.max(...componentDiffs(ours.fit, full.components, job.k));
  lines.push(
    `| ${job.name} | ${job.rows} x ${job.cols} | ${job.k} | ${e(ratioDiff)} | ${e(comp)} | ${e(minGap(ours.fit.eigenvalues, job.k))} | ${f(ours.seconds)} | ${f(full.fit_s)} | ${f(ours.seconds / full.fit_s, 2)} | ${f(ours.endToEnd ?? NaN)} |`,
  );
}
for (const name of wide ? WIDE : []) {
  const job = jobs.find((j) => j.name === name)!;
  const ours = mine[name];
  const { full, randomized } = ref.results[name];
  const k = job.k;
  const fullK = full.ratio.slice(0, k);
  const refFit = (r: RefFit): PcaFit => ({ ...ours.fit, components: Float64Array.from(r.components.flat()) });
  lines.push("", `${name} ${job.rows} x ${job.cols} (k = ${k}); differences are to sklearn PCA(svd_solver="full"):`, "");
  lines.push("| solver | max abs diff ratio (first k) | max abs diff components per factor 1..k | fit s |");
  lines.push("|---|---:|---|---:|");
  const row = (label: string, ratio: number[], fit: PcaFit, s: number) =>
    lines.push(`| ${label} | ${e(maxDiff(ratio, fullK))} | ${componentDiffs(fit, full.components, k).map(e).join(" ")} | ${f(s)} |`);
  row("ours randomized (8 power iterations, 10 oversamples)", ratiosOf(ours.fit, k), ours.fit, ours.seconds);
  row("sklearn randomized (n_iter auto, LU)", randomized.ratio, refFit(randomized), randomized.fit_s);
  row("ours exact (forced)", ratiosOf(ours.exact!.fit, k), ours.exact!.fit, ours.exact!.seconds);
  row("sklearn full", fullK, refFit(full), full.fit_s);
  lines.push(
    "",
    `eigenvalues (sklearn full, first k+1): ${full.variance
      .slice(0, k + 1)
      .map((v) => f(v, 3))
      .join(", ")}; ratios: ${fullK.map((v) => f(v, 4)).join(", ")}`,
  );
}
console.log(lines.join("\n"));
