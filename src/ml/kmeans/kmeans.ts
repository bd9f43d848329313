/**
 * k-means with restarts: greedy k-means++ seeding (./seeding), then exact accelerated Lloyd
 * iterations: Hamerly's (./hamerly) by default; Elkan's (./elkan) and plain Lloyd (./lloyd, the
 * reference) give the same result. Hamerly over Elkan: in this engine it was faster on every
 * shape benchmarked (k 8-20, d 16-64, separated or overlapping clusters: 1.2-3.9×): Elkan
 * computes fewer distances but keeps n·k bounds up to date every iteration, which costs more
 * here than the distances it saves (bench/unsupervised/clustering-RESULTS.md), and needs 8·k
 * bytes per row where Hamerly needs 16. `nInit` restarts, each seeded from `seed`, keep the
 * lowest inertia (the first on a tie): same data + same options => same result. A restart
 * clearly heading for a worse optimum than the best one so far is abandoned (./abandon): on
 * overlapping clusters most iterations were spent by such restarts, which are discarded anyway.
 *
 * Defaults and stopping match scikit-learn's KMeans (max_iter 300, tol 1e-4 scaled by the mean
 * variance of the columns), except nInit: 3 rather than 10 (1 in recent versions), a middle
 * ground between the cost of restarts and the odd bad seeding k-means++ still makes. Started from
 * the same centers, our iterations and scikit-learn's (lloyd and elkan) stop after the same number
 * of iterations at the same inertia (checked on the benchmark's overlapping blobs): the counts
 * differ only through the seeding's random draws.
 *
 * Threads (`parallel`): the passes over every row (the seeding's update after each center,
 * Hamerly's assignment) run on them on large tables (./row-passes); the restarts stay one after
 * the other, each using every thread: with 2 threads and 3 restarts, running restarts side by
 * side would leave a thread idle for the third.
 */
import type { ParallelExecutor } from "../parallel";
import { Rng } from "../random";
import type { RestartBar } from "./abandon";
import { columnSpread } from "./centers";
import { elkanIterations } from "./elkan";
import { hamerlyIterations } from "./hamerly";
import { type IterationResult, lloydIterations } from "./lloyd";
import { passesInParallel, RowPasses } from "./row-passes";
import { kmeansPlusPlus, seedingBuffers } from "./seeding";

export type KMeansAlgorithm = "hamerly" | "elkan" | "lloyd";

export interface KMeansOptions {
  k: number;
  /** Restarts (default 3). */
  nInit?: number;
  /** Iterations per restart (default 300). */
  maxIter?: number;
  /** Stop when the centers move by at most tol × mean column variance in total squared distance (default 1e-4). */
  tol?: number;
  seed?: number;
  /** Default "hamerly"; "elkan" and "lloyd" give the same result, slower. */
  algorithm?: KMeansAlgorithm;
  /** Abandon restarts clearly heading for a worse optimum than the best so far (./abandon; default true). */
  abandonWorse?: boolean;
  /** The host's threads (Hamerly's passes over the rows run on them on large tables); absent: one thread. Same result either way. */
  parallel?: ParallelExecutor;
}

const KMEANS_DEFAULTS = { nInit: 3, maxIter: 300, tol: 1e-4 } as const;

export interface KMeansResult extends IterationResult {
  k: number;
  /** Inertia of each restart, in order; of an abandoned one, its objective when abandoned (above the best). */
  restartInertias: number[];
}

export function kmeans(X: Float64Array, n: number, d: number, opts: KMeansOptions): KMeansResult {
  const steps = kmeansSteps(X, n, d, opts);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * The same, one yield per restart (its 1-based number). The caller checks that 1 ≤ k ≤ n and
 * that X has at least k distinct rows (./rows countDistinctRows).
 */
export function* kmeansSteps(X: Float64Array, n: number, d: number, opts: KMeansOptions): Generator<number, KMeansResult, void> {
  const { k } = opts;
  const nInit = opts.nInit ?? KMEANS_DEFAULTS.nInit;
  const maxIter = opts.maxIter ?? KMEANS_DEFAULTS.maxIter;
  if (!(k >= 1 && k <= n) || !Number.isInteger(k)) throw new Error(`k-means: k = ${k} with ${n} rows`);
  if (X.length !== n * d) throw new Error(`k-means: ${X.length} values are not ${n} x ${d}`);
  const spread = columnSpread(X, n, d);
  const tolAbs = (opts.tol ?? KMEANS_DEFAULTS.tol) * spread.meanVariance;
  const master = new Rng(opts.seed ?? 0);
  const origin = X.slice(0, d);
  const algorithm = opts.algorithm ?? "hamerly";
  let best: IterationResult | null = null;
  const restartInertias: number[] = [];
  // row-sized memory shared by the restarts (first-touching fresh arrays costs a measurable
  // share of a fit on large tables): Hamerly adopts the seeding's arrays as its labels and
  // bounds, so only the kept restart's labels need a new array for the next seeding
  const passes = new RowPasses(X, n, d, k, algorithm === "hamerly" && passesInParallel(opts.parallel, n, d, k) ? opts.parallel : undefined);
  const buffers = seedingBuffers(n, passes);
  const hamerly = algorithm === "hamerly" ? { adoptStart: true, exact: passes.uint8(n), moves: passes.int32(2 * n), passes } : undefined;
  for (let r = 0; r < nInit; r++) {
    const rng = new Rng(Math.floor(master.next() * 4294967296));
    const seeds = kmeansPlusPlus(X, n, d, k, rng, buffers, passes);
    const bar: RestartBar | undefined =
      best && opts.abandonWorse !== false ? { best: best.inertia, origin, squaresAboutOrigin: spread.squaresAboutFirstRow } : undefined;
    const res: IterationResult =
      algorithm === "lloyd"
        ? lloydIterations(X, n, d, seeds.centers, k, maxIter, tolAbs, bar)
        : algorithm === "elkan"
          ? elkanIterations(X, n, d, seeds.centers, k, maxIter, tolAbs, seeds, bar)
          : hamerlyIterations(X, n, d, seeds.centers, k, maxIter, tolAbs, seeds, hamerly, bar);
    restartInertias.push(res.inertia);
    if (!best || res.inertia < best.inertia) {
      // the labels of the restart it replaces are free (unless not ours: lloyd, elkan)
      if (res.labels === buffers.nearest && r + 1 < nInit) buffers.nearest = best?.labels ?? passes.int32(n);
      best = res;
    }
    yield r + 1;
  }
  passes.close();
  return { ...best!, k, restartInertias };
}
