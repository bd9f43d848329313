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
import { Rng } from "../random";

export type FeatureBins = { kind: "numeric"; upper: number[] } | { kind: "categorical"; codes: number[] };

const MAX_VALUE_BINS = 255;

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
    const picked = binSampleRows(total, sampleSize, opts.seed ?? 0);
    rows = opts.rows ? picked.map((i) => opts.rows![i]) : picked;
  }
  const n = rows ? rows.length : numRows;
  const out: FeatureBins[] = [];
  const buf = new Float32Array(n);
  const tmpA = new Uint32Array(n);
  const tmpB = new Uint32Array(n);
  for (let f = 0; f < numFeatures; f++) {
    let m = 0;
    for (let i = 0; i < n; i++) {
      const x = data[(rows ? rows[i] : i) * numFeatures + f];
      if (x === x) buf[m++] = x;
    }
    const vals = sortFloat32(buf.subarray(0, m), tmpA, tmpB);
    out.push(isCategorical[f] ? categoricalBins(vals, maxBins - 1) : numericBins(vals, maxBins));
  }
  return out;
}

/**
 * The rows computeBins places its edges on when there are more than `sampleSize` (indexes into
 * 0..total-1): a deterministic sample without replacement, in row order. Exported so that a caller
 * can featurize just these rows and bin them with the same result (../representation/representation).
 */
export function binSampleRows(total: number, sampleSize: number, seed: number): Int32Array {
  const all = new Int32Array(total);
  for (let i = 0; i < total; i++) all[i] = i;
  new Rng(seed).shuffle(all);
  return all.slice(0, sampleSize).sort();
}

/** LSD radix sort (2 x 16 bits) of NaN-free float32 values, in place; returns `vals`. */
function sortFloat32(vals: Float32Array, a: Uint32Array, b: Uint32Array): Float32Array {
  const n = vals.length;
  if (n < 2048) return vals.sort();
  const bits = new Uint32Array(vals.buffer, vals.byteOffset, n);
  for (let i = 0; i < n; i++) {
    const u = bits[i];
    a[i] = u & 0x80000000 ? ~u >>> 0 : (u | 0x80000000) >>> 0;
  }
  const count = new Int32Array(65536);
  for (let pass = 0; pass < 2; pass++) {
    const src = pass === 0 ? a : b;
    const dst = pass === 0 ? b : a;
    const shift = pass * 16;
    count.fill(0);
    for (let i = 0; i < n; i++) count[(src[i] >>> shift) & 0xffff]++;
    let sum = 0;
    for (let k = 0; k < 65536; k++) {
      const c = count[k];
      count[k] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const v = src[i];
      dst[count[(v >>> shift) & 0xffff]++] = v;
    }
  }
  for (let i = 0; i < n; i++) {
    const k = a[i];
    bits[i] = k & 0x80000000 ? (k & 0x7fffffff) >>> 0 : ~k >>> 0;
  }
  return vals;
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
  return {
    kind: "categorical",
    codes: order
      .slice(0, maxCodes)
      .map((i) => codes[i])
      .sort((a, b) => a - b),
  };
}

function numericBins(sorted: Float32Array, maxBins: number): FeatureBins {
  const m = sorted.length;
  let distinct = 0;
  for (let i = 0; i < m && distinct <= maxBins; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) distinct++;
  const upper: number[] = [];
  if (distinct <= maxBins) {
    for (let i = 1; i < m; i++) if (sorted[i] !== sorted[i - 1]) upper.push(edge(sorted[i - 1], sorted[i]));
    return { kind: "numeric", upper };
  }
  // greedy quantiles: each bin takes its share of the remaining values, extended to the end
  // of the run of equal values it stops in (a heavy value gets a bin of its own)
  let i = 0;
  let binsLeft = maxBins;
  while (binsLeft > 1 && i < m) {
    const cut = Math.min(m - 1, i + Math.max(1, Math.ceil((m - i) / binsLeft)) - 1);
    const v = sorted[cut];
    // e = first index with sorted[e] > v
    let lo = cut + 1;
    let hi = m;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid] > v) hi = mid;
      else lo = mid + 1;
    }
    if (lo >= m) break;
    upper.push(edge(v, sorted[lo]));
    i = lo;
    binsLeft--;
  }
  return { kind: "numeric", upper };
}

/** A float32 edge e with a <= e < b (a < b are float32 values). */
function edge(a: number, b: number): number {
  const mid = Math.fround(a / 2 + b / 2);
  return mid >= a && mid < b ? mid : a;
}

/** Bin matrix [rows x numFeatures] (row-major Uint8) for the given rows (default all). */
export function applyBins(data: Float32Array, numRows: number, numFeatures: number, bins: FeatureBins[], rows?: Int32Array): Uint8Array {
  const idx = rows ?? Int32Array.from({ length: numRows }, (_, i) => i);
  const out = new Uint8Array(idx.length * numFeatures);
  for (let f = 0; f < numFeatures; f++) binInto(data, numFeatures, f, bins[f], idx, out, numFeatures, f);
  return out;
}

/**
 * Bins one feature's column (`values[r]` for frame row r) of the given rows into column f of a
 * row-major bin matrix `out` [rows.length x F]: binning a large table feature by feature.
 */
export function binColumn(values: Float32Array, b: FeatureBins, rows: Int32Array, out: Uint8Array, F: number, f: number): void {
  binInto(values, 1, 0, b, rows, out, F, f);
}

/** out[i * F + f] = bin of data[rows[i] * S + s]. */
function binInto(data: Float32Array, S: number, s: number, b: FeatureBins, rows: Int32Array, out: Uint8Array, F: number, f: number): void {
  if (b.kind === "numeric") binNumeric(data, S, s, rows, Float64Array.from(b.upper), out, F, f);
  else {
    const maxCode = b.codes.length ? b.codes[b.codes.length - 1] : -1;
    const lookup = new Uint8Array(maxCode + 1).fill(b.codes.length + 1);
    b.codes.forEach((c, k) => (lookup[c] = k + 1));
    binCategorical(data, S, s, rows, lookup, b.codes.length + 1, out, F, f);
  }
}

function binNumeric(data: Float32Array, S: number, s0: number, rows: Int32Array, up: Float64Array, out: Uint8Array, F: number, f: number): void {
  const n = rows.length;
  const last = up.length;
  // a bucket table over [up[0], up[last-1]] narrows the search to a few edges
  const B = 1024;
  const lo0 = last ? up[0] : 0;
  const span = last ? up[last - 1] - lo0 : 0;
  const useTable = last > 8 && span > 0 && Number.isFinite(span);
  const scale = useTable ? B / span : 0;
  const start = new Int32Array(B + 1);
  if (useTable) {
    let k = 0;
    for (let j = 0; j <= B; j++) {
      const left = lo0 + j / scale;
      while (k < last && up[k] < left) k++;
      start[j] = k;
    }
    start[B] = last;
  }
  for (let i = 0; i < n; i++) {
    const x = data[rows[i] * S + s0];
    if (x !== x) continue; // bin 0
    let s = 0;
    let e = last;
    if (useTable) {
      if (x <= lo0) e = 0;
      else if (x > up[last - 1]) s = last;
      else {
        let j = Math.floor((x - lo0) * scale);
        if (j >= B) j = B - 1;
        s = start[j];
        e = start[j + 1];
        // guard against rounding at bucket borders
        if ((s > 0 && up[s - 1] >= x) || (e < last && up[e] < x)) {
          s = 0;
          e = last;
        }
      }
    }
    // lower bound in [s, e]: first k with x <= up[k]
    while (s < e) {
      const mid = (s + e) >> 1;
      if (x <= up[mid]) e = mid;
      else s = mid + 1;
    }
    out[i * F + f] = s + 1;
  }
}

function binCategorical(
  data: Float32Array,
  S: number,
  s: number,
  rows: Int32Array,
  lookup: Uint8Array,
  other: number,
  out: Uint8Array,
  F: number,
  f: number,
): void {
  const n = rows.length;
  const maxCode = lookup.length - 1;
  for (let i = 0; i < n; i++) {
    const x = data[rows[i] * S + s];
    if (x !== x) continue;
    out[i * F + f] = x >= 0 && x <= maxCode && x === Math.floor(x) ? lookup[x] : other;
  }
}
