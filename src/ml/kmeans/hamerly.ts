/**
 * Hamerly's accelerated k-means (G. Hamerly, "Making k-means even faster", SDM 2010): exact
 * Lloyd iterations (./lloyd's contract: same labels, centers and iteration count) that skip most
 * distance computations once the clustering settles.
 *
 * Per row: an upper bound u on the distance to its center and a lower bound l on the distance to
 * every other center; per center: s = half the distance to its nearest other center. A row keeps
 * its center without any scan while u < max(s, l). When centers move by δ, u grows by its
 * center's δ and l shrinks by the largest δ of the others. The comparisons are strict, so a tie
 * always rescans and the first center wins it, as in Lloyd.
 *
 * Why Hamerly rather than Elkan (./elkan) or mini-batch: it needs 2 numbers per row (Elkan k),
 * was the faster of the two on every shape measured (see ./kmeans), and unlike mini-batch it is
 * exact.
 */
import { ClusterSums, dist2, inertiaOf } from "./centers";
import { type IterationResult, totalShift } from "./lloyd";

/**
 * `start`: the rows' nearest initial center and squared distance when known (the seeding's), and
 * a lower bound on the squared distance to the others (0 when absent), so the first assignment
 * starts from bounds instead of a full scan.
 */
export function hamerlyIterations(
  X: Float64Array,
  n: number,
  d: number,
  init: Float64Array,
  k: number,
  maxIter: number,
  tolAbs: number,
  start?: { labels: Int32Array; dist2: Float64Array; second?: Float64Array },
  reuse?: HamerlyBuffers,
): IterationResult {
  const st = new State(X, n, d, Float64Array.from(init), k, start && reuse?.adoptStart ? start : undefined, reuse?.exact);
  let next: Float64Array = new Float64Array(k * d);
  let full = true;
  if (start) {
    const { upper, lower } = st;
    if (st.labels !== start.labels) st.labels.set(start.labels);
    const d2 = start.dist2;
    for (let i = 0; i < n; i++) upper[i] = Math.sqrt(d2[i]);
    const second = start.second;
    if (second) for (let i = 0; i < n; i++) lower[i] = Math.sqrt(second[i]);
    else lower.fill(0);
    st.exact.fill(1);
    full = false;
  }
  let strict = false;
  let it = 0;
  while (it < maxIter) {
    it++;
    const changed = st.assign(full);
    st.sums ??= new ClusterSums(X, n, d, k, st.labels);
    const emptied = st.sums.means(st.labels, st.centers, next);
    const shift = totalShift(st.centers, next);
    const old = st.centers;
    st.centers = next;
    next = old;
    full = emptied;
    if (!full) st.moveBounds(next);
    // the first iteration's labels are new whatever `changed` says (Lloyd's start from none)
    if (changed === 0 && it > 1) {
      strict = true;
      break;
    }
    if (shift <= tolAbs) break;
  }
  if (!strict) st.assign(full);
  return { centers: st.centers, labels: st.labels, inertia: inertiaOf(X, n, d, st.centers, st.labels), iterations: it, converged: strict };
}

/**
 * Memory the iterations may use instead of allocating (./kmeans' restarts; first-touching fresh
 * row-sized arrays is a measurable share of a fit on large tables). `adoptStart`: the start's
 * arrays become the state (labels: the result's labels; dist2 and second: overwritten by the
 * bounds), so the caller must not read them afterwards. `exact`: n bytes, any contents.
 */
export interface HamerlyBuffers {
  adoptStart?: boolean;
  exact?: Uint8Array;
}

/**
 * Measure a loose bound before scanning while at least this share of the measures avoid the scan
 * (a scan of all k centers costs a few single distances with ./hamerly rowToCenters' kernel).
 */
const MEASURE_FIRST = 0.5;

class State {
  readonly labels: Int32Array;
  readonly upper: Float64Array;
  readonly lower: Float64Array;
  /** 1 while upper is the exact distance (since the last scan or measure, before centers move). */
  readonly exact: Uint8Array;
  private readonly half: Float64Array;
  private readonly moved: Float64Array;
  /** Center moves recorded by moveBounds, not yet applied to the rows' bounds: the most moved center and the two largest moves. */
  private pending = false;
  private top = -1;
  private first = 0;
  private second = 0;
  /** Whether a failed loose upper bound is measured before scanning (see assign). */
  private measureFirst = true;
  /** Scratch: one row's squared distances to the centers. */
  private readonly toCenters: Float64Array;
  /** Built after the first assignment; the later ones move rows in it. */
  sums: ClusterSums | null = null;

  constructor(
    readonly X: Float64Array,
    readonly n: number,
    readonly d: number,
    public centers: Float64Array,
    readonly k: number,
    adopt?: { labels: Int32Array; dist2: Float64Array; second?: Float64Array },
    exact?: Uint8Array,
  ) {
    this.labels = adopt ? adopt.labels : new Int32Array(n).fill(-1);
    this.upper = adopt ? adopt.dist2 : new Float64Array(n);
    this.lower = adopt?.second ?? new Float64Array(n);
    this.exact = exact ? exact.fill(0) : new Uint8Array(n);
    this.half = new Float64Array(k);
    this.moved = new Float64Array(k);
    this.toCenters = new Float64Array(k);
  }

  /** Assigns every row to its nearest center; `full`: without trusting the bounds. Returns the number of labels changed. */
  assign(full: boolean): number {
    const { X, n, d, k, centers, labels, upper, lower, exact, half, toCenters, moved, top, first, second } = this;
    if (!full) this.halfGaps();
    // the bounds' pending loosening (moveBounds) is applied row by row below; a full scan replaces them
    const pending = this.pending;
    this.pending = false;
    const measureFirst = this.measureFirst;
    // rows whose upper bound was loose and failed, and those of them a measure alone would have kept
    let loose = 0;
    let keep = 0;
    let changed = 0;
    for (let i = 0; i < n; i++) {
      const a = labels[i];
      if (pending) {
        const ma = moved[a];
        upper[i] += ma;
        if (ma > 0) exact[i] = 0;
        lower[i] -= a === top ? second : first;
      }
      // a loose upper bound that fails is first tightened by measuring the assigned center
      // (Hamerly), unless the last assignment showed that this rarely avoids the scan: then the
      // row is scanned at once (same labels; the bounds are only tighter)
      let m = 0;
      if (!full) {
        m = Math.max(half[a], lower[i]);
        if (upper[i] < m) continue;
        if (exact[i] === 0) {
          loose++;
          if (measureFirst) {
            const u = Math.sqrt(dist2(X, i, centers, a, d));
            upper[i] = u;
            exact[i] = 1;
            if (u < m) {
              keep++;
              continue;
            }
          } else m = -m; // scanned below, counted there (m < 0 marks it; m > 0 here)
        }
      }
      // nearest and second nearest; ties go to the lowest index (a plain scan from 0). The
      // assigned center is scanned too (same bits as a measure): the row-against-all-centers
      // kernel costs less than skipping it would save
      rowToCenters(X, i * d, centers, k, d, toCenters);
      let b1 = Infinity;
      let b2 = Infinity;
      let best = 0;
      for (let j = 0; j < k; j++) {
        const v = toCenters[j];
        if (v < b1) {
          b2 = b1;
          b1 = v;
          best = j;
        } else if (v < b2) b2 = v;
      }
      if (m < 0 && Math.sqrt(toCenters[a]) < -m) keep++;
      if (best !== a) {
        this.sums?.move(i, a, best);
        labels[i] = best;
        changed++;
      }
      upper[i] = Math.sqrt(b1);
      lower[i] = Math.sqrt(b2);
      exact[i] = 1;
    }
    if (loose > 0) this.measureFirst = keep >= MEASURE_FIRST * loose;
    return changed;
  }

  /** half[j] = half the distance from center j to its nearest other center. */
  private halfGaps(): void {
    const { centers, k, d, half } = this;
    half.fill(Infinity);
    for (let a = 0; a < k; a++) {
      for (let b = a + 1; b < k; b++) {
        const g = 0.5 * Math.sqrt(dist2(centers, a, centers, b, d));
        if (g < half[a]) half[a] = g;
        if (g < half[b]) half[b] = g;
      }
    }
  }

  /**
   * Loosens the bounds by how far each center moved from `previous`: records the moves, which the
   * next assignment applies to each row before testing it (one pass over the rows, not two).
   */
  moveBounds(previous: Float64Array): void {
    const { centers, k, d, moved } = this;
    let top = -1;
    let first = 0;
    let second = 0;
    for (let j = 0; j < k; j++) {
      const m = Math.sqrt(dist2(centers, j, previous, j, d));
      moved[j] = m;
      if (m > first) {
        second = first;
        first = m;
        top = j;
      } else if (m > second) second = m;
    }
    if (first === 0) return;
    this.pending = true;
    this.top = top;
    this.first = first;
    this.second = second;
  }
}

/**
 * Squared distances of the row at `xi` of X to the k centers into `out`, four columns at a time
 * (the row's four values loaded once for all centers). Each distance still adds its squares one
 * at a time in column order, so it has the bits of ./centers dist2.
 */
function rowToCenters(X: Float64Array, xi: number, centers: Float64Array, k: number, d: number, out: Float64Array): void {
  let t = 0;
  if (d < 4) for (let j = 0; j < k; j++) out[j] = 0;
  else {
    // the first four columns start the sums
    const x0 = X[xi];
    const x1 = X[xi + 1];
    const x2 = X[xi + 2];
    const x3 = X[xi + 3];
    for (let j = 0, c = 0; j < k; j++, c += d) {
      const v0 = x0 - centers[c];
      const v1 = x1 - centers[c + 1];
      const v2 = x2 - centers[c + 2];
      const v3 = x3 - centers[c + 3];
      let s = v0 * v0;
      s += v1 * v1;
      s += v2 * v2;
      s += v3 * v3;
      out[j] = s;
    }
    t = 4;
  }
  for (; t + 3 < d; t += 4) {
    const x0 = X[xi + t];
    const x1 = X[xi + t + 1];
    const x2 = X[xi + t + 2];
    const x3 = X[xi + t + 3];
    for (let j = 0, c = t; j < k; j++, c += d) {
      const v0 = x0 - centers[c];
      const v1 = x1 - centers[c + 1];
      const v2 = x2 - centers[c + 2];
      const v3 = x3 - centers[c + 3];
      let s = out[j];
      s += v0 * v0;
      s += v1 * v1;
      s += v2 * v2;
      s += v3 * v3;
      out[j] = s;
    }
  }
  for (; t < d; t++) {
    const x0 = X[xi + t];
    for (let j = 0, c = t; j < k; j++, c += d) {
      const v = x0 - centers[c];
      out[j] += v * v;
    }
  }
}
