/**
 * Benchmark of the `search` engine (src/ml/knn) against scikit-learn's brute-force
 * NearestNeighbors, same run, same float32 matrices (written raw, read by both sides):
 * - blobs: 400k × 16 generated Gaussian blobs (64 centres, spread 4, per-blob scale 0.5..1.5),
 *   1000 fresh queries from the same distribution;
 * - gauss: 400k × 16 of one isotropic Gaussian (no structure at all: the pruning's worst case);
 * - fertility: the shared encoder's 16-d embedding of the real dataset (all but 1000 test rows
 *   indexed; those 1000 are the queries);
 * - diamonds: its standardized features (numeric z-scores + one-hot), same split.
 * Ours: exact, ivf and "auto" indexes (build once, timed; auto = what index "auto" builds when exact fits), searchIndex over the 1000 queries, k = 10,
 * fastest of `--repeats`. sklearn: kneighbors, fastest of `--repeats`, single-threaded.
 * Recall@10 against sklearn's answer, tie-aware: a returned row counts when its true distance
 * (float64 from the float32 matrix) is within the reference's 10th distance (the real datasets
 * have many identical rows, whose order either side may pick).
 *
 * Threads (`--threads 1,2`): every timing at each thread count, both sides at the same count:
 * sklearn with OMP/OPENBLAS/MKL_NUM_THREADS = T (and OMP_WAIT_POLICY=PASSIVE: OpenMP's spinning
 * waits take the other cores of a shared machine), ours with the trainer's threads
 * (src/container/gbdt-threads.ts) of T threads handed to the search (the build stays on one thread).
 *
 *   npx tsx bench/unsupervised/search.ts [--datasets blobs,gauss,fertility,diamonds] [--kinds exact,ivf,auto] [--threads 1] [--repeats 3]
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { GbdtThreads } from "../../src/container/gbdt-threads";
import { applyFeaturizer } from "../../src/ml/featurize";
import { buildSearchIndexSteps } from "../../src/ml/knn/build";
import { serializeSearchIndex } from "../../src/ml/knn/format";
import { idTableFromValues } from "../../src/ml/knn/ids";
import { searchIndex } from "../../src/ml/knn/search";
import type { SearchIndex, SearchIndexKind } from "../../src/ml/knn/types";
import type { ParallelExecutor } from "../../src/ml/parallel";
import { Rng } from "../../src/ml/random";
import { buildRepresentation } from "../../src/ml/representation/representation";
import { embed, standardize, standardSpace } from "../../src/ml/space/space";
import { loadBenchDataset } from "../../test/ml/helpers/bench-data";

const TMP = "/tmp/search-bench";
const PY = "/usr/bin/python3";
const K = 10;
const QUERIES = 1000;

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const repeats = Number(opt("repeats") ?? 3);
const datasets = (opt("datasets") ?? "blobs,gauss,fertility,diamonds").split(",").filter(Boolean);
const kinds = (opt("kinds") ?? "exact,ivf,auto").split(",").filter(Boolean) as (SearchIndexKind | "auto")[];
const threadCounts = (opt("threads") ?? "1").split(",").map(Number);

interface Data {
  name: string;
  what: string;
  x: Float32Array;
  q: Float32Array;
  rows: number;
  dims: number;
}

function gaussian(rng: Rng): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}

function blobs(rows: number, dims: number, seed: number): Data {
  const rng = new Rng(seed);
  const g = gaussian(rng);
  const centers = Float64Array.from({ length: 64 * dims }, () => 4 * g());
  const scale = Float64Array.from({ length: 64 }, () => 0.5 + rng.next());
  const gen = (n: number) => {
    const x = new Float32Array(n * dims);
    for (let i = 0; i < n; i++) {
      const b = rng.int(64);
      for (let j = 0; j < dims; j++) x[i * dims + j] = centers[b * dims + j] + scale[b] * g();
    }
    return x;
  };
  return { name: "blobs", what: `generated, 64 Gaussian blobs`, x: gen(rows), q: gen(QUERIES), rows, dims };
}

function gauss(rows: number, dims: number, seed: number): Data {
  const g = gaussian(new Rng(seed));
  const gen = (n: number) => Float32Array.from({ length: n * dims }, g);
  return { name: "gauss", what: "generated, one isotropic Gaussian (worst case)", x: gen(rows), q: gen(QUERIES), rows, dims };
}

/** A real dataset's embedding or standardized matrix: 1000 test-fold rows are the queries, the other rows the index. */
function real(name: string, space: "embedding" | "features"): Data {
  const ds = loadBenchDataset(name);
  const rep = buildRepresentation(ds.frame);
  const sp = standardSpace(rep);
  const m = applyFeaturizer(sp.featurizer, ds.frame);
  const v = space === "embedding" ? embed(rep.encoder!, m) : standardize(sp, m);
  const dims = v.length / ds.frame.rowCount;
  const isQuery = new Uint8Array(ds.frame.rowCount);
  for (const i of ds.folds.test.subarray(0, QUERIES)) isQuery[i] = 1;
  const rows = ds.frame.rowCount - QUERIES;
  const x = new Float32Array(rows * dims);
  const q = new Float32Array(QUERIES * dims);
  let a = 0;
  let b = 0;
  for (let i = 0; i < ds.frame.rowCount; i++) {
    if (isQuery[i]) q.set(v.subarray(i * dims, (i + 1) * dims), b++ * dims);
    else x.set(v.subarray(i * dims, (i + 1) * dims), a++ * dims);
  }
  return { name, what: `real, ${space === "embedding" ? "16-d embedding" : "standardized features"}`, x, q, rows, dims };
}

function load(name: string): Data {
  if (name === "blobs") return blobs(400_000, 16, 1);
  if (name === "gauss") return gauss(400_000, 16, 2);
  if (name === "fertility") return real("fertility", "embedding");
  if (name === "diamonds") return real("diamonds", "features");
  throw new Error(`unknown dataset ${name}`);
}

function build(d: Data, kind: SearchIndexKind | "auto"): { index: SearchIndex; seconds: number } {
  const t = performance.now();
  const steps = buildSearchIndexSteps(d.x, d.rows, d.dims, idTableFromValues(Array.from({ length: d.rows }, (_, i) => i)), {
    kind,
    seed: 0,
    targetRecall: 0.95,
  });
  let r = steps.next();
  while (!r.done) r = steps.next();
  return { index: r.value, seconds: (performance.now() - t) / 1000 };
}

/** Fastest wall and CPU time (CPU: every thread of the process; at one thread it is the steadier figure on a loaded machine). */
function timeQueries(
  index: SearchIndex,
  q: Float64Array,
  parallel?: ParallelExecutor,
): { seconds: number; cpu: number; ids: number[][]; distances: number[][] } {
  let best = Infinity;
  let bestCpu = Infinity;
  let res = searchIndex(index, q, QUERIES, K, parallel);
  for (let i = 0; i < repeats; i++) {
    const t = performance.now();
    const c = process.cpuUsage();
    res = searchIndex(index, q, QUERIES, K, parallel);
    best = Math.min(best, (performance.now() - t) / 1000);
    const used = process.cpuUsage(c);
    bestCpu = Math.min(bestCpu, (used.user + used.system) / 1e6);
  }
  return { seconds: best, cpu: bestCpu, ids: res.ids as number[][], distances: res.distances };
}

function trueDistance(d: Data, qi: number, row: number): number {
  let s = 0;
  for (let j = 0; j < d.dims; j++) s += (d.q[qi * d.dims + j] - d.x[row * d.dims + j]) ** 2;
  return Math.sqrt(s);
}

/** Tie-aware recall@K of `ids` against the reference rows, and plain id overlap. */
function recall(d: Data, ids: number[][], ref: Int32Array): { recall: number; overlap: number } {
  let hit = 0;
  let same = 0;
  for (let qi = 0; qi < QUERIES; qi++) {
    const want = ref.subarray(qi * K, qi * K + K);
    const kth = Math.max(...Array.from(want, (r) => trueDistance(d, qi, r)));
    const set = new Set(want);
    for (const r of ids[qi]) {
      if (trueDistance(d, qi, r) <= kth * (1 + 1e-9) + 1e-12) hit++;
      if (set.has(r)) same++;
    }
  }
  return { recall: hit / (QUERIES * K), overlap: same / (QUERIES * K) };
}

mkdirSync(TMP, { recursive: true });
const data = datasets.map(load);
const manifest = data.map((d) => {
  writeFileSync(join(TMP, `${d.name}.x.f32`), new Uint8Array(d.x.buffer));
  writeFileSync(join(TMP, `${d.name}.q.f32`), new Uint8Array(d.q.buffer));
  return {
    name: d.name,
    index: join(TMP, `${d.name}.x.f32`),
    queries: join(TMP, `${d.name}.q.f32`),
    rows: d.rows,
    queryRows: QUERIES,
    dims: d.dims,
    k: K,
    repeats,
    out: join(TMP, `${d.name}.ref.bin`),
  };
});
writeFileSync(join(TMP, "manifest.json"), JSON.stringify(manifest));
/** sklearn's run at each thread count (the answers, written to .ref.bin, are the same at any count). */
const refs = new Map(
  threadCounts.map((t) => {
    const n = String(t);
    const env = { ...process.env, OMP_NUM_THREADS: n, OPENBLAS_NUM_THREADS: n, MKL_NUM_THREADS: n, OMP_WAIT_POLICY: "PASSIVE" };
    const out = execFileSync(PY, ["bench/unsupervised/search_reference.py", join(TMP, "manifest.json")], { env, maxBuffer: 1 << 24 });
    return [t, JSON.parse(out.toString())];
  }),
);
const ref = refs.get(threadCounts[0])!;
const pools = new Map(threadCounts.filter((t) => t > 1).map((t) => [t, new GbdtThreads(t)]));
for (const p of pools.values()) p.warm();

const f = (x: number, n = 3) => x.toFixed(n);
const lines = [
  `sklearn ${ref.versions.sklearn}, numpy ${ref.versions.numpy}; ${QUERIES} queries, k = ${K}, fastest of ${repeats}; times in seconds`,
  "",
  "| data | rows × dims | threads | sklearn brute query | ours | build | query | ratio ours/sklearn | CPU s sklearn / ours | CPU ratio | nlist | nprobe | train recall@10 | recall@10 vs sklearn (tie-aware) | id overlap | index MB |",
  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
];
for (const d of data) {
  const raw = readFileSync(join(TMP, `${d.name}.ref.bin`));
  const refIds = new Int32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + QUERIES * K * 4));
  const q = Float64Array.from(d.q);
  // "auto": the kind a model with index "auto" gets when exact fits (exact unless it cannot prune)
  for (const kind of kinds) {
    const { index, seconds: buildS } = build(d, kind);
    for (const threads of threadCounts) {
      const r = refs.get(threads).results[d.name];
      const res = timeQueries(index, q, pools.get(threads));
      const rc = recall(d, res.ids, refIds);
      if (kind === "exact") {
        // exactness of our distances (float64 on the float32 matrix)
        let worst = 0;
        res.ids.forEach((row, qi) => row.forEach((id, t) => (worst = Math.max(worst, Math.abs(res.distances[qi][t] - trueDistance(d, qi, id))))));
        if (worst > 1e-9) console.warn(`${d.name}: exact distances off by ${worst}`);
      }
      const mb = serializeSearchIndex(index).length / 2 ** 20;
      lines.push(
        `| ${d.name} (${d.what}) | ${d.rows} × ${d.dims} | ${threads} | ${f(r.query_s)} | ${kind === "auto" ? `auto → ${index.kind}` : kind} | ${f(buildS, 2)} | ${f(res.seconds)} | ${f(res.seconds / r.query_s, 2)} | ${f(r.query_cpu_s)} / ${f(res.cpu)} | ${f(res.cpu / r.query_cpu_s, 2)} | ${index.nlist} | ${index.nprobe} | ${index.recall === null ? "-" : f(index.recall)} | ${f(rc.recall, 4)} | ${f(rc.overlap, 4)} | ${f(mb, 1)} |`,
      );
      console.log(lines[lines.length - 1]);
    }
  }
}
await Promise.all([...pools.values()].map((p) => p.close()));
console.log(`\n${lines.join("\n")}`);
writeFileSync(join(TMP, "results.md"), `${lines.join("\n")}\n`);
