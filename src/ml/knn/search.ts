/**
 * k-nearest-neighbour queries against a search index (./types), Euclidean distance: the API
 * (ids and distances, or training rows and squared distances). The search itself, query by
 * query, is ./scan's; on large searches the host's threads take the queries in ranges
 * (./parallel-search).
 */
import type { ParallelExecutor } from "../parallel";
import { idAt, type SearchId } from "./ids";
import { searchesInParallel, searchOnThreads } from "./parallel-search";
import { type RowResult, searchRange } from "./scan";
import type { SearchIndex } from "./types";

export type { RowResult } from "./scan";

export interface SearchResult {
  /** Per query: the neighbours' ids, nearest first. */
  ids: SearchId[][];
  /** Per query: their Euclidean distances, ascending. */
  distances: number[][];
}

/**
 * The k nearest training rows of each query (`queries` row-major [numQueries x dims]); k larger
 * than the row count returns every row. Non-finite query values count as 0.
 */
export function searchIndex(index: SearchIndex, queries: Float64Array, numQueries: number, k: number, parallel?: ParallelExecutor): SearchResult {
  const r = searchRows(index, queries, numQueries, k, index.nprobe, undefined, parallel);
  const ids: SearchId[][] = [];
  const distances: number[][] = [];
  for (let q = 0; q < numQueries; q++) {
    const rowIds: SearchId[] = [];
    const rowDist: number[] = [];
    for (let t = q * r.k; t < (q + 1) * r.k; t++) {
      rowIds.push(idAt(index.ids, r.rows[t]));
      rowDist.push(Math.sqrt(r.dist2[t]));
    }
    ids.push(rowIds);
    distances.push(rowDist);
  }
  return { ids, distances };
}

/** Rows whose distance a search computed, summed over its queries (how well the bounds pruned). */
export interface ScanStats {
  scanned: number;
}

/**
 * Same search, training row numbers and squared distances; `nprobe` overrides the index's (ivf);
 * `stats` (exact index) adds the rows whose distance was computed; `parallel`: the host's threads,
 * which take the queries in ranges on large searches (./parallel-search; same result).
 */
export function searchRows(
  index: SearchIndex,
  queries: Float64Array,
  numQueries: number,
  k: number,
  nprobe = index.nprobe,
  stats?: ScanStats,
  parallel?: ParallelExecutor,
): RowResult {
  const d = index.dims;
  if (!Number.isInteger(k) || k < 1) throw new Error(`k must be a positive integer, got ${k}`);
  if (queries.length < numQueries * d) throw new Error(`queries hold ${queries.length} values, ${numQueries} x ${d} expected`);
  const kk = Math.min(k, index.rows);
  if (kk > 0 && searchesInParallel(parallel, index, numQueries)) {
    const r = searchOnThreads(parallel, index, queries, numQueries, kk, nprobe);
    if (stats) stats.scanned += r.scanned;
    return r.result;
  }
  const out: RowResult = { k: kk, rows: new Int32Array(numQueries * kk), dist2: new Float64Array(numQueries * kk) };
  if (kk === 0) return out;
  const scanned = searchRange(index, queries, 0, numQueries, nprobe, out);
  if (stats) stats.scanned += scanned;
  return out;
}
