/**
 * Benchmark of the `clustering` engine (src/ml/kmeans, src/ml/unsupervised/clustering) against
 * scikit-learn's KMeans, same run, same matrices (raw float64 files both sides read):
 * 1. quality: adjusted Rand index against known labels, ours vs KMeans at the same k and n_init
 *    on the same space matrix, mean over 20 seeds; generated blobs and real tables (shuttle's 7
 *    classes, fertility's morekids), in both spaces (standardized features, embedding); on
 *    shuttle, 40 seeds per side split by the inertia they reach (the objective vs the labels);
 * 2. speed: 500k × 16, k = 8, single thread, per seed the fastest of `--repeats` fits, wall and
 *    CPU time, our runs interleaved with scikit-learn's; ours (greedy k-means++ + Hamerly) vs
 *    KMeans lloyd and elkan, same n_init, max_iter 300, tol 1e-4; and our own three iteration
 *    variants (Hamerly, Elkan, Lloyd) from the same seeds;
 * 3. auto-k: the model's choice of k on well-separated blobs with 4 and 6 clusters, and our
 *    silhouette against sklearn's silhouette_score on the same sample and labels.
 *
 *   npx tsx bench/unsupervised/clustering.ts [--repeats 3] [--quick] [--sections quality,speed,auto-k] [--no-write]
 * (the results file is written only for a full run: all sections, not --quick)
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { adjustedRandIndex } from "../../src/ml/kmeans/ari";
import { assignNearest, meanVariance } from "../../src/ml/kmeans/centers";
import { clusterSamples } from "../../src/ml/kmeans/choose-k";
import { elkanIterations } from "../../src/ml/kmeans/elkan";
import { hamerlyIterations } from "../../src/ml/kmeans/hamerly";
import { kmeans } from "../../src/ml/kmeans/kmeans";
import { lloydIterations } from "../../src/ml/kmeans/lloyd";
import { takeRows } from "../../src/ml/kmeans/rows";
import { kmeansPlusPlus } from "../../src/ml/kmeans/seeding";
import { silhouetteScore } from "../../src/ml/kmeans/silhouette";
import { Rng } from "../../src/ml/random";
import { type ClusteringModel, trainClusteringSteps } from "../../src/ml/unsupervised/clustering";
import { blobs, labelledTable, type Matrix, matrixFrame, spacesOf } from "./clustering-data";
import { type AutoK, mean, type Optima, type Quality, type RefFit, renderReport, type Speed, type Timing, type Variant } from "./clustering-report";

const TMP = "/tmp/clustering-bench";
const PY = "/usr/bin/python3";
const SEEDS = Array.from({ length: 20 }, (_, i) => i);
const N_INIT = 3;

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const quick = args.includes("--quick");
const repeats = Number(opt("repeats") ?? (quick ? 1 : 3));
const sections = (opt("sections") ?? "quality,speed,auto-k").split(",");
mkdirSync(TMP, { recursive: true });

// the reference serves one job per line, so its runs interleave with ours (same machine load)
const env = { ...process.env, OMP_NUM_THREADS: "1", OPENBLAS_NUM_THREADS: "1", MKL_NUM_THREADS: "1" };
const py = spawn(PY, ["bench/unsupervised/clustering_reference.py"], { env, stdio: ["pipe", "pipe", "inherit"] });
const replies = createInterface({ input: py.stdout! })[Symbol.asyncIterator]();
async function reply(): Promise<any> {
  const r = await replies.next();
  if (r.done) throw new Error("the scikit-learn reference stopped");
  return JSON.parse(r.value);
}
const versions = (await reply()) as Record<string, string>;
async function sklearn(job: Record<string, unknown>): Promise<any> {
  // RefFit for "fit" jobs, { silhouette } for "silhouette" ones
  py.stdin!.write(`${JSON.stringify(job)}\n`);
  return reply();
}
let files = 0;
function save(data: Float64Array | Int32Array): string {
  const path = join(TMP, `m${files++}.bin`);
  writeFileSync(path, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  return path;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

// ---- 1. quality: ARI, ours vs sklearn on the same matrices -------------------------------------
const quality: Quality[] = [];
async function addQuality(name: string, space: string, m: Matrix, y: Int32Array, k: number): Promise<void> {
  const ours = SEEDS.map((seed) => {
    const r = kmeans(m.X, m.rows, m.cols, { k, nInit: N_INIT, seed });
    return { ari: adjustedRandIndex(r.labels, y), inertia: r.inertia };
  });
  const job = {
    kind: "fit",
    path: save(m.X),
    rows: m.rows,
    cols: m.cols,
    k,
    n_init: N_INIT,
    algorithm: "lloyd",
    seeds: SEEDS,
    repeats: 1,
    labels: save(y),
  };
  const ref: RefFit = await sklearn(job);
  quality.push({ name, space, k, rows: m.rows, cols: m.cols, ours, ref });
  console.log(`  ${name} ${space}: ARI ours ${mean(ours.map((o) => o.ari)).toFixed(4)}, sklearn ${mean(ref.runs.map((x) => x.ari!)).toFixed(4)}`);
}

/** Many seeds on one matrix, both sides: how often each reaches the lowest inertia, and the ARI there. */
const optima: Optima[] = [];
async function addOptima(name: string, m: Matrix, y: Int32Array, k: number): Promise<void> {
  const seeds = Array.from({ length: quick ? 10 : 40 }, (_, i) => i);
  const [path, labels] = [save(m.X), save(y)];
  for (const nInit of [1, N_INIT]) {
    const ours = seeds.map((seed) => {
      const r = kmeans(m.X, m.rows, m.cols, { k, nInit, seed });
      return { ari: adjustedRandIndex(r.labels, y), inertia: r.inertia };
    });
    const ref: RefFit = await sklearn({
      kind: "fit",
      path,
      rows: m.rows,
      cols: m.cols,
      k,
      n_init: nInit,
      algorithm: "lloyd",
      seeds,
      repeats: 1,
      labels,
    });
    optima.push({ name, nInit, ours, ref });
    console.log(
      `  optima ${name} n_init=${nInit}: mean inertia ours ${mean(ours.map((o) => o.inertia)).toFixed(0)}, sklearn ${mean(ref.runs.map((x) => x.inertia)).toFixed(0)}`,
    );
  }
}

console.log("quality (ARI)");
const qualitySets: { name: string; frame: ReturnType<typeof matrixFrame>; y: Int32Array; k: number }[] = [];
for (const [std, label] of sections.includes("quality")
  ? ([
      [1, "blobs σ=1"],
      [4, "blobs σ=4 (overlapping)"],
    ] as const)
  : []) {
  const b = blobs(quick ? 4000 : 20_000, 16, 8, std, 7);
  qualitySets.push({ name: `${label} ${b.rows / 1000}k×16 k=8`, frame: matrixFrame(b), y: b.y, k: 8 });
}
for (const table of !sections.includes("quality") ? [] : quick ? ["shuttle"] : ["shuttle", "fertility"]) {
  const t = labelledTable(table);
  qualitySets.push({ name: `${table} (${t.frame.rowCount} rows, k = ${t.classes} classes)`, frame: t.frame, y: t.y, k: t.classes });
}
for (const q of sections.includes("quality") ? qualitySets : []) {
  const s = spacesOf(q.frame);
  await addQuality(q.name, "features", s.features, q.y, q.k);
  await addQuality(q.name, "embedding", s.embedding, q.y, q.k);
  if (q.name.startsWith("shuttle")) await addOptima(`${q.name}, features space`, s.features, q.y, q.k);
}

// ---- 2. speed: 500k × 16, k = 8 --------------------------------------------------------------
const SPEED_SEEDS = [0, 1, 2, 3, 4];
const speed: Speed[] = [];
console.log("speed");
const speedRows = quick ? 100_000 : 500_000;
const zero = (): Timing => ({ wall: 0, cpu: 0, iterations: 0, inertia: 0 });
for (const [std, label] of sections.includes("speed")
  ? ([
      [1, "blobs σ=1"],
      [4, "blobs σ=4 (overlapping)"],
    ] as const)
  : []) {
  const b = blobs(speedRows, 16, 8, std, 11);
  const path = save(b.X);
  for (const nInit of [1, N_INIT]) {
    const name = `${label} ${speedRows / 1000}k×16 k=8`;
    const total = { ours: zero(), lloyd: zero(), elkan: zero() };
    for (const seed of SPEED_SEEDS) {
      const best: Record<keyof typeof total, Timing> = { ours: zero(), lloyd: zero(), elkan: zero() };
      for (const t of Object.values(best)) t.wall = t.cpu = Infinity;
      for (let i = 0; i < repeats; i++) {
        const w0 = performance.now();
        const c0 = cpuMs();
        const r = kmeans(b.X, b.rows, b.cols, { k: 8, nInit, seed });
        const cpu = (cpuMs() - c0) / 1000;
        const wall = (performance.now() - w0) / 1000;
        best.ours = { wall: Math.min(best.ours.wall, wall), cpu: Math.min(best.ours.cpu, cpu), iterations: r.iterations, inertia: r.inertia };
        for (const algorithm of ["lloyd", "elkan"] as const) {
          const one: RefFit = await sklearn({ kind: "fit", path, rows: b.rows, cols: 16, k: 8, n_init: nInit, algorithm, seeds: [seed], repeats: 1 });
          const prev = best[algorithm];
          best[algorithm] = {
            wall: Math.min(prev.wall, one.wall_s),
            cpu: Math.min(prev.cpu, one.cpu_s),
            iterations: one.runs[0].n_iter,
            inertia: one.runs[0].inertia,
          };
        }
      }
      for (const key of ["ours", "lloyd", "elkan"] as const)
        for (const f of ["wall", "cpu", "iterations", "inertia"] as const) total[key][f] += best[key][f];
    }
    speed.push({ name, nInit, ...total });
    const ratio = total.ours.cpu / Math.min(total.lloyd.cpu, total.elkan.cpu);
    console.log(
      `  ${name} n_init=${nInit}: CPU s ours ${total.ours.cpu.toFixed(3)}, lloyd ${total.lloyd.cpu.toFixed(3)}, elkan ${total.elkan.cpu.toFixed(3)}: ratio ${ratio.toFixed(2)}`,
    );
  }
}

// ---- 2b. our iteration variants (why Hamerly): same seeding, iterations only ------------------
const variants: Variant[] = [];
console.log("variants");
for (const [rows, d, k, std] of sections.includes("speed")
  ? ([
      [speedRows, 16, 8, 1],
      [speedRows, 16, 8, 4],
      [speedRows / 2, 16, 20, 2],
      [speedRows / 5, 64, 8, 4],
    ] as const)
  : []) {
  const b = blobs(rows, d, k, std, 13);
  const tol = 1e-4 * meanVariance(b.X, rows, d);
  const seeds = kmeansPlusPlus(b.X, rows, d, k, new Rng(0));
  const cpu = { hamerly: Infinity, elkan: Infinity, lloyd: Infinity };
  let iterations = 0;
  for (let i = 0; i < repeats; i++) {
    for (const algorithm of ["hamerly", "elkan", "lloyd"] as const) {
      const c0 = cpuMs();
      const r =
        algorithm === "hamerly"
          ? hamerlyIterations(b.X, rows, d, seeds.centers, k, 300, tol, seeds)
          : algorithm === "elkan"
            ? elkanIterations(b.X, rows, d, seeds.centers, k, 300, tol, seeds)
            : lloydIterations(b.X, rows, d, seeds.centers, k, 300, tol);
      cpu[algorithm] = Math.min(cpu[algorithm], (cpuMs() - c0) / 1000);
      iterations = r.iterations;
    }
  }
  const name = `blobs σ=${std} ${rows / 1000}k×${d} k=${k}`;
  variants.push({ name, iterations, cpu });
  console.log(
    `  ${name}: ${iterations} iterations, CPU s hamerly ${cpu.hamerly.toFixed(3)}, elkan ${cpu.elkan.toFixed(3)}, lloyd ${cpu.lloyd.toFixed(3)}`,
  );
}

// ---- 3. auto-k -------------------------------------------------------------------------------
const autoK: AutoK[] = [];
console.log("auto-k");
for (const trueK of sections.includes("auto-k") ? [4, 6] : []) {
  const b = blobs(5000, 8, trueK, 1, 20 + trueK);
  const frame = matrixFrame(b);
  const s = spacesOf(frame);
  const g = trainClusteringSteps(frame, { representation: s.rep, params: {} });
  let r = g.next();
  while (!r.done) r = g.next();
  const model = r.value as ClusteringModel;
  const sel = (model.summary as { k_selection: { candidates: AutoK["scores"] } }).k_selection;
  // our silhouette vs sklearn's on the model's sample and labels
  const rows = clusterSamples(5000, 0).silhouette;
  const S = takeRows(s.features.X, s.features.cols, rows);
  const { labels } = assignNearest(S, rows.length, s.features.cols, model.assigner.centroids, model.assigner.k);
  const ours = silhouetteScore(S, rows.length, s.features.cols, labels, model.assigner.k)!;
  const ref = await sklearn({ kind: "silhouette", path: save(S), rows: rows.length, cols: s.features.cols, labels: save(labels) });
  autoK.push({ trueK, chosen: model.assigner.k, scores: sel.candidates, silhouette: ours, sklearnSilhouette: ref.silhouette });
  console.log(`  true k ${trueK}: chose ${model.assigner.k}`);
}

// ---- report ----------------------------------------------------------------------------------
py.stdin!.end();
const md = renderReport({
  command: `npx tsx bench/unsupervised/clustering.ts${args.length ? ` ${args.join(" ")}` : ""}`,
  versions,
  nInit: N_INIT,
  seeds: SEEDS.length,
  speedSeeds: SPEED_SEEDS,
  repeats,
  quality,
  optima,
  speed,
  variants,
  autoK,
});
console.log(`\n${md}`);
if (!quick && sections.length === 3 && !args.includes("--no-write")) {
  // the tables go between the markers; the discussion around them is kept
  const path = "bench/unsupervised/clustering-RESULTS.md";
  const [open, close] = ["<!-- tables -->", "<!-- /tables -->"];
  const old = existsSync(path) ? readFileSync(path, "utf8") : "";
  const at = old.indexOf(open);
  const end = old.indexOf(close);
  const block = `${open}\n${md}\n${close}`;
  writeFileSync(path, at >= 0 && end > at ? old.slice(0, at) + block + old.slice(end + close.length) : `${block}\n`);
  console.log(`wrote ${path}`);
}
