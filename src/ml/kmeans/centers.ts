/**
 * What every k-means variant shares, so that they agree to the last bit: the squared distance,
 * the nearest-center scan (first index wins a tie, like ONNX ArgMin) and the center update
 * (means recomputed from scratch in row order, empty clusters moved to far points).
 *
 * Matrices are row-major float64: X [n x d], centers [k x d].
 */

/** Squared Euclidean distance between row `i` of `a` and row `j` of `b` (both of width d). */
export function dist2(a: Float64Array, i: number, b: Float64Array, j: number, d: number): number {
  // unrolled by 4, the squares still added one at a time in column order (the same bits as a
  // plain loop: every variant, the seeding's and the ONNX graph's distances agree)
  let s = 0;
  const ai = i * d;
  const bj = j * d;
  let t = 0;
  for (; t + 3 < d; t += 4) {
    const v0 = a[ai + t] - b[bj + t];
    const v1 = a[ai + t + 1] - b[bj + t + 1];
    const v2 = a[ai + t + 2] - b[bj + t + 2];
    const v3 = a[ai + t + 3] - b[bj + t + 3];
    s += v0 * v0;
    s += v1 * v1;
    s += v2 * v2;
    s += v3 * v3;
  }
  for (; t < d; t++) {
    const v = a[ai + t] - b[bj + t];
    s += v * v;
  }
  return s;
}

/**
 * Nearest center of every row (the first one on a tie) and its squared distance. The engine's
 * assignment: training's final labels and what the ONNX graph's ArgMin reproduces.
 */
export function assignNearest(X: Float64Array, n: number, d: number, centers: Float64Array, k: number): { labels: Int32Array; dist2: Float64Array } {
  const labels = new Int32Array(n);
  const best = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let b = Infinity;
    let a = 0;
    for (let j = 0; j < k; j++) {
      const v = dist2(X, i, centers, j, d);
      if (v < b) {
        b = v;
        a = j;
      }
    }
    labels[i] = a;
    best[i] = b;
  }
  return { labels, dist2: best };
}

/**
 * Per-cluster sums and counts of the rows, kept up to date as rows change cluster (Hamerly's
 * incremental update: the cost of a center update is then the moves, not a pass over every row).
 * Every variant makes the same moves in the same row order, so they agree to the last bit.
 */
export class ClusterSums {
  readonly sums: Float64Array;
  readonly counts: Float64Array;
  constructor(
    private readonly X: Float64Array,
    private readonly n: number,
    private readonly d: number,
    private readonly k: number,
    labels: Int32Array,
  ) {
    const sums = new Float64Array(k * d);
    const counts = new Float64Array(k);
    this.sums = sums;
    this.counts = counts;
    for (let i = 0; i < n; i++) {
      const c = labels[i];
      counts[c]++;
      const xi = i * d;
      const ci = c * d;
      for (let t = 0; t < d; t++) sums[ci + t] += X[xi + t];
    }
  }

  /** Row i leaves cluster `from` for `to`. */
  move(i: number, from: number, to: number): void {
    const { X, d, sums, counts } = this;
    counts[from]--;
    counts[to]++;
    const xi = i * d;
    const f = from * d;
    const g = to * d;
    for (let t = 0; t < d; t++) {
      const v = X[xi + t];
      sums[f + t] -= v;
      sums[g + t] += v;
    }
  }

  /**
   * The means into `out`. A cluster left empty first takes the row farthest from its own center
   * in `old` (ties: the lowest row index; the row's label changes), as scikit-learn does: the
   * alternative, keeping a center nobody uses, wastes one of the k. Returns whether any cluster
   * was empty (the accelerated variant must then rebuild its bounds).
   */
  means(labels: Int32Array, old: Float64Array, out: Float64Array): boolean {
    const { k, d, sums, counts } = this;
    const empty: number[] = [];
    for (let c = 0; c < k; c++) if (counts[c] === 0) empty.push(c);
    if (empty.length > 0) this.relocate(labels, old, empty);
    for (let c = 0; c < k; c++) {
      // still empty only when every other cluster has a single row (n close to k): keep the center
      if (counts[c] === 0) out.set(old.subarray(c * d, c * d + d), c * d);
      else for (let t = 0; t < d; t++) out[c * d + t] = sums[c * d + t] / counts[c];
    }
    return empty.length > 0;
  }

  /** Σ_c n_c·|mean_c - p|² over the non-empty clusters (p: [d]). */
  squaresOfMeansAbout(p: Float64Array): number {
    const { k, d, sums, counts } = this;
    let s = 0;
    for (let c = 0; c < k; c++) {
      const m = counts[c];
      if (m === 0) continue;
      let q = 0;
      for (let t = 0; t < d; t++) {
        const v = sums[c * d + t] - m * p[t];
        q += v * v;
      }
      s += q / m;
    }
    return s;
  }

  private relocate(labels: Int32Array, old: Float64Array, empty: number[]): void {
    const { X, n, d, counts } = this;
    const far = new Float64Array(n);
    for (let i = 0; i < n; i++) far[i] = dist2(X, i, old, labels[i], d);
    const order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => far[b] - far[a] || a - b);
    let next = 0;
    for (const c of empty) {
      while (next < n && counts[labels[order[next]]] <= 1) next++;
      if (next >= n) break;
      const i = order[next++];
      this.move(i, labels[i], c);
      labels[i] = c;
    }
  }
}

/** Mean over the columns of each column's variance (population): scales the tolerance. */
export function meanVariance(X: Float64Array, n: number, d: number): number {
  return columnSpread(X, n, d).meanVariance;
}

/** meanVariance, and the sum of the rows' squared distances to the first row (./abandon's objective). */
export function columnSpread(X: Float64Array, n: number, d: number): { meanVariance: number; squaresAboutFirstRow: number } {
  if (n === 0 || d === 0) return { meanVariance: 0, squaresAboutFirstRow: 0 };
  // one pass, sums shifted by the first row (no cancellation when the columns sit far from 0)
  const sum = new Float64Array(d);
  const sq = new Float64Array(d);
  for (let i = 0; i < n; i++) {
    for (let t = 0; t < d; t++) {
      const v = X[i * d + t] - X[t];
      sum[t] += v;
      sq[t] += v * v;
    }
  }
  let s = 0;
  let squares = 0;
  for (let t = 0; t < d; t++) {
    s += Math.max(0, sq[t] / n - (sum[t] / n) ** 2);
    squares += sq[t];
  }
  return { meanVariance: s / d, squaresAboutFirstRow: squares };
}

/** Sum of squared distances of the rows to their centers. */
export function inertiaOf(X: Float64Array, n: number, d: number, centers: Float64Array, labels: Int32Array): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += dist2(X, i, centers, labels[i], d);
  return s;
}
