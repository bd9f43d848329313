/**
 * The search of a range of queries against a search index (./types), Euclidean distance (./search
 * is the API).
 *
 * Per query: the distance dc to every cell centroid, then the cells in ascending dc order (./cells;
 * all of them for exact, the first nprobe for ivf). With τ the current k-th best distance, the
 * triangle inequality |dc − rho| ≤ ‖q − x‖ gives, without touching a vector:
 * - a cell whose every row has rho < dc − τ (dc − radius > τ) holds no neighbour: skipped, and
 *   once dc − (largest radius) > τ no remaining cell can hold one: the search stops;
 * - inside a cell (rows sorted by rho) only rows with rho in [dc − τ, dc + τ] can be neighbours:
 *   a binary search finds the first, the scan stops after the last.
 * A bounded max-heap (./topk) keeps the k best by (distance, training row). The bounds get a small
 * relative slack (rho is stored as float32), so pruning never drops a row at distance ≤ τ: exact
 * search is exact, ties included.
 *
 * Distances are Σ (q_j − x_j)² in float64 (no cancellation, so a query on a stored point is at 0),
 * summed in four interleaved accumulators (same vector, same sum: identical rows tie exactly);
 * ivf decodes x_j = lo + step × code inline.
 */
import { CellQueue } from "./cells";
import { TopK } from "./topk";
import type { ExactIndex, IvfIndex } from "./types";

/** Relative slack of the pruning bounds (float32 rho is within 6e-8 of the float64 value). */
const SLACK = 1e-6;

/** Raw result: per query, min(k, rows) training rows and squared distances, row-major. */
export interface RowResult {
  k: number;
  rows: Int32Array;
  dist2: Float64Array;
}

/** The index without its ids: what a search reads (and what goes to the threads). */
export type SearchableIndex = Omit<ExactIndex, "ids"> | Omit<IvfIndex, "ids">;

/**
 * Searches queries [from, to) into `out` (out.k neighbours each, at the query's place); returns
 * the rows whose distance it computed (exact index).
 */
export function searchRange(index: SearchableIndex, queries: Float64Array, from: number, to: number, nprobe: number, out: RowResult): number {
  const d = index.dims;
  const kk = out.k;
  const probes = Math.max(1, Math.min(nprobe, index.nlist));
  let maxRadius = 0;
  for (let l = 0; l < index.nlist; l++) maxRadius = Math.max(maxRadius, index.radius[l]);
  const heap = new TopK(kk);
  const q = new Float64Array(d);
  const dc = new Float64Array(index.nlist);
  const cells = new CellQueue(index.nlist);
  const work = new Float64Array(2 * d);
  let scanned = 0;
  for (let qi = from; qi < to; qi++) {
    for (let j = 0; j < d; j++) {
      const v = queries[qi * d + j];
      q[j] = Number.isFinite(v) ? v : 0;
    }
    centroidDistances(index, q, dc);
    cells.fill(dc, index.nlist);
    heap.reset();
    for (let t = 0; t < probes && !cells.empty; t++) {
      // every remaining cell is at least this far from q, and no row is farther than maxRadius from its centroid
      const tau = Math.sqrt(heap.bound);
      if (cells.peek() - maxRadius > tau + SLACK * (cells.peek() + tau)) break;
      const l = cells.pop();
      if (index.kind === "exact") scanned += scanExact(index, l, q, dc[l], heap);
      else scanIvf(index, l, q, dc[l], heap, work);
    }
    heap.drain(out.rows.subarray(qi * kk), out.dist2.subarray(qi * kk));
  }
  return scanned;
}

function centroidDistances(index: SearchableIndex, q: Float64Array, dc: Float64Array): void {
  const d = index.dims;
  const c = index.centroids;
  for (let l = 0; l < index.nlist; l++) {
    let s = 0;
    const o = l * d;
    for (let j = 0; j < d; j++) {
      const t = q[j] - c[o + j];
      s += t * t;
    }
    dc[l] = Math.sqrt(s);
  }
}

/** First position in [from, to) whose rho is ≥ value (rho ascending there). */
function lowerBound(rho: Float32Array, from: number, to: number, value: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rho[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Scans cell l for neighbours of q; returns the number of rows whose distance it computed. */
function scanExact(index: Omit<ExactIndex, "ids">, l: number, q: Float64Array, dcl: number, heap: TopK): number {
  const { start, rho, rowOf, vectors } = index;
  const d = index.dims;
  const d4 = d & ~3;
  const end = start[l + 1];
  let tau = Math.sqrt(heap.bound);
  if (start[l] === end || dcl - index.radius[l] > tau + SLACK * (dcl + tau)) return 0;
  const first = tau === Infinity ? start[l] : lowerBound(rho, start[l], end, dcl - tau - SLACK * (dcl + tau));
  let p = first;
  let hiRho = dcl + tau + SLACK * (dcl + tau);
  while (p < end && rho[p] <= hiRho) {
    const o = p * d;
    // four accumulators per row: independent add chains run in parallel (the JIT keeps the order
    // as written, so a row's sum has the same bits whichever way it is computed)
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let j = 0;
    if (p + 1 < end && rho[p + 1] <= hiRho) {
      // two rows at once share the query's loads; the second is kept only if it is still in
      // range once the first is in the heap (what one row at a time would have done)
      const o2 = o + d;
      let r0 = 0;
      let r1 = 0;
      let r2 = 0;
      let r3 = 0;
      for (; j < d4; j += 4) {
        const q0 = q[j];
        const q1 = q[j + 1];
        const q2 = q[j + 2];
        const q3 = q[j + 3];
        const t0 = q0 - vectors[o + j];
        const t1 = q1 - vectors[o + j + 1];
        const t2 = q2 - vectors[o + j + 2];
        const t3 = q3 - vectors[o + j + 3];
        const u0 = q0 - vectors[o2 + j];
        const u1 = q1 - vectors[o2 + j + 1];
        const u2 = q2 - vectors[o2 + j + 2];
        const u3 = q3 - vectors[o2 + j + 3];
        s0 += t0 * t0;
        s1 += t1 * t1;
        s2 += t2 * t2;
        s3 += t3 * t3;
        r0 += u0 * u0;
        r1 += u1 * u1;
        r2 += u2 * u2;
        r3 += u3 * u3;
      }
      for (; j < d; j++) {
        const t = q[j] - vectors[o + j];
        s0 += t * t;
        const u = q[j] - vectors[o2 + j];
        r0 += u * u;
      }
      const s = s0 + s1 + (s2 + s3);
      if (s <= heap.bound) {
        heap.push(s, rowOf[p]);
        tau = Math.sqrt(heap.bound);
        hiRho = dcl + tau + SLACK * (dcl + tau);
      }
      p++;
      if (rho[p] > hiRho) break;
      const r = r0 + r1 + (r2 + r3);
      if (r <= heap.bound) {
        heap.push(r, rowOf[p]);
        tau = Math.sqrt(heap.bound);
        hiRho = dcl + tau + SLACK * (dcl + tau);
      }
      p++;
      continue;
    }
    for (; j < d4; j += 4) {
      const t0 = q[j] - vectors[o + j];
      const t1 = q[j + 1] - vectors[o + j + 1];
      const t2 = q[j + 2] - vectors[o + j + 2];
      const t3 = q[j + 3] - vectors[o + j + 3];
      s0 += t0 * t0;
      s1 += t1 * t1;
      s2 += t2 * t2;
      s3 += t3 * t3;
    }
    for (; j < d; j++) {
      const t = q[j] - vectors[o + j];
      s0 += t * t;
    }
    const s = s0 + s1 + (s2 + s3);
    if (s <= heap.bound) {
      heap.push(s, rowOf[p]);
      tau = Math.sqrt(heap.bound);
      hiRho = dcl + tau + SLACK * (dcl + tau);
    }
    p++;
  }
  return p - first;
}

/** As scanExact on the decoded 8-bit vectors; `work` holds the cell's lo and step as float64. */
function scanIvf(index: Omit<IvfIndex, "ids">, l: number, q: Float64Array, dcl: number, heap: TopK, work: Float64Array): void {
  const { start, rho, rowOf, codes } = index;
  const d = index.dims;
  const d4 = d & ~3;
  const end = start[l + 1];
  let tau = Math.sqrt(heap.bound);
  if (start[l] === end || dcl - index.radius[l] > tau + SLACK * (dcl + tau)) return;
  // q_j − x_j = (q_j − lo_j) − step_j × code: one multiply-subtract per value
  for (let j = 0; j < d; j++) {
    work[j] = q[j] - index.lo[l * d + j];
    work[d + j] = index.step[l * d + j];
  }
  let p = tau === Infinity ? start[l] : lowerBound(rho, start[l], end, dcl - tau - SLACK * (dcl + tau));
  let hiRho = dcl + tau + SLACK * (dcl + tau);
  for (; p < end; p++) {
    if (rho[p] > hiRho) break;
    const o = p * d;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let j = 0;
    for (; j < d4; j += 4) {
      const t0 = work[j] - work[d + j] * codes[o + j];
      const t1 = work[j + 1] - work[d + j + 1] * codes[o + j + 1];
      const t2 = work[j + 2] - work[d + j + 2] * codes[o + j + 2];
      const t3 = work[j + 3] - work[d + j + 3] * codes[o + j + 3];
      s0 += t0 * t0;
      s1 += t1 * t1;
      s2 += t2 * t2;
      s3 += t3 * t3;
    }
    for (; j < d; j++) {
      const t = work[j] - work[d + j] * codes[o + j];
      s0 += t * t;
    }
    const s = s0 + s1 + (s2 + s3);
    if (s <= heap.bound) {
      heap.push(s, rowOf[p]);
      tau = Math.sqrt(heap.bound);
      hiRho = dcl + tau + SLACK * (dcl + tau);
    }
  }
}
