/**
 * Passes over the standardized data, a chunk of rows at a time (so the dense [N x D] matrix never
 * has to exist whole), each yielding once per chunk so training can report progress.
 *
 * Standardized rows are mostly zeros wherever there are one-hot blocks, so the passes work on the
 * UNCENTERED rows, skipping zeros, and correct for the mean afterwards:
 *   Σ (x − μ)(x − μ)ᵀ = Σ x xᵀ − N μ μᵀ.
 * The subtraction costs at most log10(1 / (1 − p)) digits on a one-hot level of frequency p, and
 * nothing on a standardized numeric column (mean ≈ 0): far inside float64.
 */

/** The standardized training rows, served in chunks. */
export interface ChunkSource {
  numRows: number;
  D: number;
  numChunks: number;
  /** Row-major [rows x D] standardized values of chunk c (rows = length / D). */
  chunk(c: number): Float64Array;
}

/** A source over one in-memory row-major matrix (tests, benchmarks, small data). */
export function matrixSource(x: Float64Array, numRows: number, D: number, chunkRows = 4096): ChunkSource {
  const numChunks = Math.max(1, Math.ceil(numRows / chunkRows));
  return {
    numRows,
    D,
    numChunks,
    chunk: (c) => x.subarray(c * chunkRows * D, Math.min(numRows, (c + 1) * chunkRows) * D),
  };
}

export interface Moments {
  mean: Float64Array;
  /** Per column: sample variance (divisor N − 1). */
  variance: Float64Array;
}

/** Means and variances of the columns (one pass). */
export function* momentsPass(src: ChunkSource): Generator<void, Moments, void> {
  const { D } = src;
  const sum = new Float64Array(D);
  const sq = new Float64Array(D);
  for (let c = 0; c < src.numChunks; c++) {
    const x = src.chunk(c);
    for (let o = 0; o < x.length; o += D) {
      for (let d = 0; d < D; d++) {
        const v = x[o + d];
        sum[d] += v;
        sq[d] += v * v;
      }
    }
    yield;
  }
  return finishMoments(sum, sq, src.numRows);
}

function finishMoments(sum: Float64Array, sq: Float64Array, n: number): Moments {
  const mean = sum.map((s) => s / n);
  const variance = sq.map((s, d) => Math.max(0, s - n * mean[d] * mean[d]) / Math.max(1, n - 1));
  return { mean, variance };
}

/** Means and the full covariance matrix (row-major [D x D], divisor N − 1), one pass. */
export function* covariancePass(src: ChunkSource): Generator<void, Moments & { covariance: Float64Array }, void> {
  const { D } = src;
  const n = src.numRows;
  const sum = new Float64Array(D);
  const gram = new Float64Array(D * D); // upper triangle accumulated
  const nz = new Int32Array(D);
  for (let c = 0; c < src.numChunks; c++) {
    const x = src.chunk(c);
    for (let o = 0; o < x.length; o += D) {
      let m = 0;
      for (let d = 0; d < D; d++) {
        const v = x[o + d];
        if (v !== 0) {
          nz[m++] = d;
          sum[d] += v;
        }
      }
      for (let a = 0; a < m; a++) {
        const da = nz[a];
        const va = x[o + da];
        const row = da * D;
        for (let b = a; b < m; b++) gram[row + nz[b]] += va * x[o + nz[b]];
      }
    }
    yield;
  }
  const mean = sum.map((s) => s / n);
  const covariance = new Float64Array(D * D);
  const div = Math.max(1, n - 1);
  for (let a = 0; a < D; a++) {
    for (let b = a; b < D; b++) {
      const v = (gram[a * D + b] - n * mean[a] * mean[b]) / div;
      covariance[a * D + b] = v;
      covariance[b * D + a] = v;
    }
  }
  const variance = new Float64Array(D);
  for (let d = 0; d < D; d++) variance[d] = Math.max(0, covariance[d * D + d]);
  return { mean, variance, covariance };
}

/**
 * C·Y for the covariance C of the source (never formed) and Y row-major [D x l]: one pass,
 * per row t = xᵀY then acc += x tᵀ, then the mean correction.
 */
export function* covarianceTimes(src: ChunkSource, mean: Float64Array, y: Float64Array, l: number): Generator<void, Float64Array, void> {
  const { D } = src;
  const n = src.numRows;
  const acc = new Float64Array(D * l);
  const t = new Float64Array(l);
  const nz = new Int32Array(D);
  for (let c = 0; c < src.numChunks; c++) {
    const x = src.chunk(c);
    for (let o = 0; o < x.length; o += D) {
      let m = 0;
      t.fill(0);
      for (let d = 0; d < D; d++) {
        const v = x[o + d];
        if (v === 0) continue;
        nz[m++] = d;
        const yr = d * l;
        for (let j = 0; j < l; j++) t[j] += v * y[yr + j];
      }
      for (let a = 0; a < m; a++) {
        const d = nz[a];
        const v = x[o + d];
        const ar = d * l;
        for (let j = 0; j < l; j++) acc[ar + j] += v * t[j];
      }
    }
    yield;
  }
  // − N μ (μᵀY), then / (N − 1)
  const muY = new Float64Array(l);
  for (let d = 0; d < D; d++) for (let j = 0; j < l; j++) muY[j] += mean[d] * y[d * l + j];
  const div = Math.max(1, n - 1);
  for (let d = 0; d < D; d++) {
    for (let j = 0; j < l; j++) acc[d * l + j] = (acc[d * l + j] - n * mean[d] * muY[j]) / div;
  }
  return acc;
}
