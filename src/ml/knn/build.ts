/**
 * Builds the search index (./types) over the training rows' vectors:
 * 1. coarse k-means (./kmeans, nearest-centroid steps by ./assign) into
 *    nlist = round(NLIST_PER_SQRT_ROWS × √rows) cells;
 * 2. every row to its nearest centroid; rows stored cell by cell, sorted by distance to it (./layout);
 * 3. exact: the float32 vectors in that order. ivf: 8-bit codes (./quantize), then nprobe tuned
 *    on a training sample (./recall) for the target recall@10 against exact search.
 *    "auto": exact, unless (from AUTO_IVF_MIN_ROWS rows) its search of that sample computed the
 *    distance of more than MAX_EXACT_SCAN_SHARE of the rows per query (data without cluster structure, where the
 *    bounds cannot prune and exact search is a brute force) and the tuned ivf index reaches the
 *    target recall: then ivf, which visits only nprobe cells.
 * Same vectors + same seed ⇒ the same index, byte for byte.
 */
import type { ParallelExecutor } from "../parallel";
import { assignCells } from "./assign";
import type { IdTable } from "./ids";
import { kmeansSteps } from "./kmeans";
import { layoutExact } from "./layout";
import { quantize } from "./quantize";
import { recallSample, tuneNprobe } from "./recall";
import type { SearchIndex, SearchIndexKind } from "./types";

/** Cells per √rows: more cells = tighter cells (better pruning) but more centroids per query. */
const NLIST_PER_SQRT_ROWS = 1;
const KMEANS_ITERATIONS = 10;
/**
 * "auto" keeps exact search while it computes at most this share of the distances a brute force
 * would. On the benchmark's data (bench/unsupervised/search-RESULTS.md) exact search of the recall
 * sample computes 0.3-4.6% of them on clustered and real data, 65% on a structureless Gaussian.
 */
const MAX_EXACT_SCAN_SHARE = 0.25;
/**
 * ...and below this many rows "auto" stays exact whatever it scans: a query that computes every
 * distance then costs under a millisecond, not worth approximate answers.
 */
const AUTO_IVF_MIN_ROWS = 50_000;

export interface BuildIndexOptions {
  /** "auto": exact or ivf by how well exact search prunes (see the top of this file). */
  kind: SearchIndexKind | "auto";
  seed: number;
  /** ivf: the recall@10 the tuned nprobe must reach on the training sample. */
  targetRecall: number;
  /** The host's threads: the recall sample's exact search runs on them (same result). */
  parallel?: ParallelExecutor;
}

/** Progress yields of {@link buildSearchIndexSteps}: one per k-means pass, the layout, the tuning. */
export const BUILD_STEPS = KMEANS_ITERATIONS + 2;

export function nlistFor(rows: number): number {
  return Math.max(1, Math.min(rows, Math.round(NLIST_PER_SQRT_ROWS * Math.sqrt(rows))));
}

/** Index over `x` (row-major float32 [rows x dims]); yields BUILD_STEPS times. */
export function* buildSearchIndexSteps(
  x: Float32Array,
  rows: number,
  dims: number,
  ids: IdTable,
  opts: BuildIndexOptions,
): Generator<void, SearchIndex, void> {
  if (rows < 1 || dims < 1) throw new Error(`cannot index ${rows} rows of ${dims} dimensions`);
  const centroids = yield* kmeansSteps(x, rows, dims, nlistFor(rows), opts.seed, KMEANS_ITERATIONS, assignCells);
  const exact = layoutExact(x, rows, dims, centroids, assignCells(x, rows, dims, centroids), ids);
  yield;
  if (opts.kind === "exact" || (opts.kind === "auto" && rows < AUTO_IVF_MIN_ROWS)) {
    yield;
    return exact;
  }
  const sample = recallSample(exact, x, opts.seed, opts.parallel);
  if (opts.kind === "auto" && sample.scanShare <= MAX_EXACT_SCAN_SHARE) {
    yield;
    return exact;
  }
  const ivf = quantize(exact);
  const { nprobe, recall, met } = tuneNprobe(ivf, sample, opts.targetRecall, opts.parallel);
  yield;
  if (opts.kind === "auto" && !met) return exact;
  return { ...ivf, nprobe, recall };
}
