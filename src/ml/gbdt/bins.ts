/**
 * Quantile bins. Every feature gets bin 0 = missing (NaN) plus at most 255 value bins, so a
 * binned row fits a Uint8Array.
 * - numeric: value bin k+1 holds x with upper[k-1] < x <= upper[k]; the last value bin
 *   (upper.length + 1) holds x > every edge. Edges are float32 values, and binning compares
 *   float32 values with them, so "bin <= t" is exactly "x <= upper[t-1]" (the model threshold).
 * - categorical: value bin k+1 holds code codes[k] (the most frequent codes, at most 254); the
 *   last bin (codes.length + 1) holds every other code ("other"), which never goes left.
 * Plain JSON, so bins can be stored in the shared representation and reused.
 */
import { Rng } from "./random";

export type FeatureBins = { kind: "numeric"; upper: number[] } | { kind: "categorical"; codes: number[] };

export const MAX_VALUE_BINS = 255;

export function binCount(b: FeatureBins): number {
  return (b.kind === "numeric" ? b.upper.length : b.codes.length) + 2;
}

export interface ComputeBinsOptions {
  maxBins?: number;
  /** Rows sampled to place the edges (default 200,000). */
  sampleSize?: number;
  seed?: number;
  /** Only these rows (default all). */
  rows?: Int32Array;
}

export function computeBins(
  data: Float32Array,
  numRows: number,
  numFeatures: number,
  isCategorical: ArrayLike<boolean | number>,
  opts: ComputeBinsOptions = {},
): FeatureBins[] {
  const maxBins = Math.min(opts.maxBins ?? MAX_VALUE_BINS, MAX_VALUE_BINS);
  const sampleSize = opts.sampleSize ?? 200_000;
  let rows = opts.rows;
  const total = rows ? rows.length : numRows;
  if (total > sampleSize) {
    // deterministic sample without replacement, kept in row order
    const all = new Int32Array(total);
    for (let i = 0; i < total; i++) all[i] = rows ? rows[i] : i;
    new Rng(opts.seed ?? 0).shuffle(all);
    rows = all.subarray(0, sampleSize).sort();
  }
  const n = rows ? rows.length : numRows;
  const out: FeatureBins[] = [];
  const buf = new Float32Array(n);
  for (let f = 0; f < numFeatures; f++) {
    let m = 0;
    for (let i = 0; i < n; i++) {
      const x = data[(rows ? rows[i] : i) * numFeatures + f];
      if (x === x) buf[m++] = x;
    }
    const vals = buf.subarray(0, m).sort();
    out.push(isCategorical[f] ? categoricalBins(vals, maxBins - 1) : numericBins(vals, maxBins));
  }
  return out;
}

function categoricalBins(sorted: Float32Array, maxCodes: number): FeatureBins {
  const codes: number[] = [];
  const counts: number[] = [];
  for (let i = 0; i < sorted.length; ) {
    const x = sorted[i];
    let j = i + 1;
    while (j < sorted.length && sorted[j] === x) j++;
    if (x >= 0 && x === Math.floor(x)) {
      codes.push(x);
      counts.push(j - i);
    }
    i = j;
  }
  if (codes.length <= maxCodes) return { kind: "categorical", codes };
  const order = codes.map((_, i) => i).sort((a, b) => counts[b] - counts[a] || codes[a] - codes[b]);
  return { kind: "categorical", codes: order.slice(0, maxCodes).map((i) => codes[i]).sort((a, b) => a - b) };
}

function numericBins(sorted: Float32Array, maxBins: number): FeatureBins {
  const distinct: number[] = [];
  const counts: number[] = [];
  for (let i = 0; i < sorted.length; ) {
    const x = sorted[i];
    let j = i + 1;
    while (j < sorted.length && sorted[j] === x) j++;
    distinct.push(x);
    counts.push(j - i);
    i = j;
  }
  const upper: number[] = [];
  const d = distinct.length;
  if (d <= maxBins) {
    for (let k = 0; k + 1 < d; k++) upper.push(edge(distinct[k], distinct[k + 1]));
    return { kind: "numeric", upper };
  }
  // greedy quantiles over distinct values: close a bin once it holds its share of the rest
  let remaining = sorted.length;
  let binsLeft = maxBins;
  let acc = 0;
  for (let k = 0; k + 1 < d && binsLeft > 1; k++) {
    acc += counts[k];
    const target = remaining / binsLeft;
    // close when full, or when the next value alone would overfill this bin
    if (acc >= target || (acc > 0 && acc + counts[k + 1] > 1.5 * target && acc >= 0.5 * target)) {
      upper.push(edge(distinct[k], distinct[k + 1]));
      remaining -= acc;
      binsLeft--;
      acc = 0;
    }
  }
  return { kind: "numeric", upper };
}

/** A float32 edge e with a <= e < b (a < b are float32 values). */
function edge(a: number, b: number): number {
  const mid = Math.fround(a / 2 + b / 2);
  return mid >= a && mid < b ? mid : a;
}

/** Bin matrix [rows x numFeatures] (row-major Uint8) for the given rows (default all). */
export function applyBins(
  data: Float32Array,
  numRows: number,
  numFeatures: number,
  bins: FeatureBins[],
  rows?: Int32Array,
): Uint8Array {
  const n = rows ? rows.length : numRows;
  const F = numFeatures;
  const out = new Uint8Array(n * F);
  for (let f = 0; f < F; f++) {
    const b = bins[f];
    if (b.kind === "numeric") {
      const up = Float64Array.from(b.upper);
      const last = up.length;
      for (let i = 0; i < n; i++) {
        const x = data[(rows ? rows[i] : i) * F + f];
        if (x !== x) continue; // bin 0
        let lo = 0;
        let hi = last;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (x <= up[mid]) hi = mid;
          else lo = mid + 1;
        }
        out[i * F + f] = lo + 1;
      }
    } else {
      const other = b.codes.length + 1;
      const maxCode = b.codes.length ? b.codes[b.codes.length - 1] : -1;
      const lookup = new Uint8Array(maxCode + 1).fill(other);
      b.codes.forEach((c, k) => (lookup[c] = k + 1));
      for (let i = 0; i < n; i++) {
        const x = data[(rows ? rows[i] : i) * F + f];
        if (x !== x) continue;
        out[i * F + f] = x >= 0 && x <= maxCode && x === Math.floor(x) ? lookup[x] : other;
      }
    }
  }
  return out;
}
