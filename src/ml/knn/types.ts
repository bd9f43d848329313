/**
 * The nearest-neighbour index over a model's training rows, as searched in memory and stored in
 * the model's `index.bin` (./format).
 *
 * Both kinds share one layout: the rows are split into `nlist` cells by a coarse k-means
 * (./kmeans), stored cell after cell, and inside a cell sorted by their distance `rho` to the
 * cell's centroid. That order is what makes search fast (./search): by the triangle inequality a
 * row whose rho differs from the query's centroid distance by more than the current k-th
 * neighbour distance cannot be a neighbour, so whole cells and most of each visited cell are
 * skipped without computing a distance.
 * - "exact": float32 vectors; every cell may be visited (nprobe = nlist): exact neighbours.
 * - "ivf": 8-bit codes (per cell and dimension: value = lo + step × code, a quarter of the
 *   memory) and only the `nprobe` cells nearest the query are visited: approximate neighbours
 *   and distances (those of the decoded vectors); nprobe is tuned at training time for a target
 *   recall, and the measured recall is kept.
 */
import type { IdTable } from "./ids";

export type SearchIndexKind = "exact" | "ivf";

interface IndexBase {
  rows: number;
  dims: number;
  nlist: number;
  /** Cells visited per query (nlist for exact). */
  nprobe: number;
  /** Leave-one-out recall@10 of the ivf index against exact search on a training sample; null for exact. */
  recall: number | null;
  /** [nlist x dims]. */
  centroids: Float64Array;
  /** Cell l holds list positions start[l] .. start[l+1]-1 ([nlist + 1]). */
  start: Uint32Array;
  /** Per cell: the largest rho of its rows (0 when empty). */
  radius: Float64Array;
  /** Per list position: distance of the stored (decoded) vector to its cell's centroid; ascending within a cell. */
  rho: Float32Array;
  /** Per list position: the training row (ties between equal distances go to the lower row). */
  rowOf: Uint32Array;
  /** Per training row: its id. */
  ids: IdTable;
}

export interface ExactIndex extends IndexBase {
  kind: "exact";
  /** [rows x dims] in list order. */
  vectors: Float32Array;
}

export interface IvfIndex extends IndexBase {
  kind: "ivf";
  /** [nlist x dims]: decoded value of code c in cell l, dimension j = lo[l*dims+j] + step[l*dims+j] * c. */
  lo: Float32Array;
  step: Float32Array;
  /** [rows x dims] in list order. */
  codes: Uint8Array;
}

export type SearchIndex = ExactIndex | IvfIndex;
