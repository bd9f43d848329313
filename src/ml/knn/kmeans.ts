/**
 * A small seeded k-means, the coarse quantizer of the search index (another model type has its
 * own clustering; this one only has to make compact cells, since tight radii prune well, see
 * ./search):
 * - trained on a seeded sample of at most SAMPLE_PER_LIST rows per centroid (as FAISS does),
 *   seeded by k-means++ (D² sampling) on a smaller sample, refined by at most `iterations` Lloyd
 *   passes whose nearest-centroid step is a parameter (./assign prunes it for many centroids);
 * - fewer distinct points than k give fewer centroids (k-means++ stops when every point sits on a
 *   centroid), and a cell that empties keeps its previous centroid.
 * The brute-force nearest-centroid pass is blocked four rows at a time (‖c‖² − 2 x·c, so the four
 * rows share each centroid load).
 */
import { Rng } from "../random";

const SAMPLE_PER_LIST = 32;
/** k-means++ seeds from at most this many sample rows per centroid. */
const SEED_PER_LIST = 16;
/** Lloyd stops early when fewer than this fraction of the sample changes cell. */
const CONVERGED = 1e-3;

/** Nearest-centroid assignment of m rows (index of the centroid per row, lowest at ties). */
export type AssignFn = (x: Float32Array, m: number, d: number, centroids: Float64Array) => Int32Array;

/**
 * k-means of a seeded sample of `x` into at most k centroids [nc x d], rounded to
 * float32 values (the index stores its vectors as float32, so centroid and vector distances are
 * computed on the same numbers). One yield per Lloyd pass: `iterations` yields in all.
 */
export function* kmeansSteps(
  x: Float32Array,
  n: number,
  d: number,
  k: number,
  seed: number,
  iterations: number,
  assign: AssignFn = nearestCentroid,
): Generator<void, Float64Array, void> {
  const rng = new Rng(seed);
  const sample = sampleRows(x, n, d, k * SAMPLE_PER_LIST, rng);
  const m = sample.length / d;
  // seeding costs k² × SEED_PER_LIST × d: on a smaller sample of the sample
  const seeds = sampleRows(sample, m, d, k * SEED_PER_LIST, rng);
  let centroids = kmeansPlusPlus(seeds, seeds.length / d, d, k, rng);
  const nc = centroids.length / d;
  const cell = new Int32Array(m).fill(-1);
  let converged = nc < 2;
  for (let it = 0; it < iterations; it++) {
    if (!converged) {
      const next = assign(sample, m, d, centroids);
      let changed = 0;
      for (let i = 0; i < m; i++) if (next[i] !== cell[i]) changed++;
      cell.set(next);
      centroids = means(sample, m, d, cell, centroids);
      converged = changed < CONVERGED * m;
    }
    yield;
  }
  return centroids;
}

/** A seeded sample of at most `max` rows (all rows when n ≤ max), kept in row order. */
function sampleRows(x: Float32Array, n: number, d: number, max: number, rng: Rng): Float32Array {
  if (n <= max) return x.subarray(0, n * d);
  const idx = new Int32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  // partial Fisher-Yates: the first `max` slots are a uniform sample
  for (let i = 0; i < max; i++) {
    const j = i + rng.int(n - i);
    const t = idx[i];
    idx[i] = idx[j];
    idx[j] = t;
  }
  const chosen = idx.subarray(0, max).sort();
  const out = new Float32Array(max * d);
  for (let i = 0; i < max; i++) out.set(x.subarray(chosen[i] * d, chosen[i] * d + d), i * d);
  return out;
}

/** k-means++ seeding; stops early when every point already sits on a centroid. */
function kmeansPlusPlus(x: Float32Array, m: number, d: number, k: number, rng: Rng): Float64Array {
  const out = new Float64Array(Math.min(k, m) * d);
  const minD2 = new Float64Array(m).fill(Infinity);
  let chosen = rng.int(m);
  let count = 0;
  for (;;) {
    const c = count * d;
    for (let j = 0; j < d; j++) out[c + j] = x[chosen * d + j];
    count++;
    let total = 0;
    for (let i = 0; i < m; i++) {
      let s = 0;
      const o = i * d;
      for (let j = 0; j < d; j++) {
        const t = x[o + j] - out[c + j];
        s += t * t;
      }
      if (s < minD2[i]) minD2[i] = s;
      total += minD2[i];
    }
    if (count >= k || !(total > 0)) break;
    let u = rng.next() * total;
    chosen = m - 1;
    for (let i = 0; i < m; i++) {
      u -= minD2[i];
      if (u < 0 && minD2[i] > 0) {
        chosen = i;
        break;
      }
    }
    // rounding can leave u ≥ 0 at the end: take the last point not on a centroid
    while (minD2[chosen] === 0) chosen--;
  }
  return out.slice(0, count * d).map(Math.fround);
}

/** Mean of each cell's points; an empty cell keeps its previous centroid. */
function means(x: Float32Array, m: number, d: number, cell: Int32Array, prev: Float64Array): Float64Array {
  const nc = prev.length / d;
  const sum = new Float64Array(nc * d);
  const count = new Float64Array(nc);
  for (let i = 0; i < m; i++) {
    const c = cell[i];
    count[c]++;
    const o = i * d;
    const s = c * d;
    for (let j = 0; j < d; j++) sum[s + j] += x[o + j];
  }
  for (let c = 0; c < nc; c++) {
    if (count[c] === 0) sum.set(prev.subarray(c * d, c * d + d), c * d);
    else for (let j = 0; j < d; j++) sum[c * d + j] = Math.fround(sum[c * d + j] / count[c]);
  }
  return sum;
}

/** Index of the nearest centroid of each of the n rows (lowest index at ties). */
export function nearestCentroid(x: Float32Array, n: number, d: number, centroids: Float64Array): Int32Array {
  const nc = centroids.length / d;
  const cn = new Float64Array(nc);
  for (let c = 0; c < nc; c++) {
    let s = 0;
    for (let j = 0; j < d; j++) s += centroids[c * d + j] ** 2;
    cn[c] = s;
  }
  const out = new Int32Array(n);
  const full = n - (n % 4);
  for (let i = 0; i < full; i += 4) {
    const o0 = i * d;
    const o1 = o0 + d;
    const o2 = o1 + d;
    const o3 = o2 + d;
    let b0 = Infinity;
    let b1 = Infinity;
    let b2 = Infinity;
    let b3 = Infinity;
    let a0 = 0;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    for (let c = 0; c < nc; c++) {
      const co = c * d;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let j = 0; j < d; j++) {
        const v = centroids[co + j];
        s0 += x[o0 + j] * v;
        s1 += x[o1 + j] * v;
        s2 += x[o2 + j] * v;
        s3 += x[o3 + j] * v;
      }
      const nrm = cn[c];
      s0 = nrm - 2 * s0;
      s1 = nrm - 2 * s1;
      s2 = nrm - 2 * s2;
      s3 = nrm - 2 * s3;
      if (s0 < b0) {
        b0 = s0;
        a0 = c;
      }
      if (s1 < b1) {
        b1 = s1;
        a1 = c;
      }
      if (s2 < b2) {
        b2 = s2;
        a2 = c;
      }
      if (s3 < b3) {
        b3 = s3;
        a3 = c;
      }
    }
    out[i] = a0;
    out[i + 1] = a1;
    out[i + 2] = a2;
    out[i + 3] = a3;
  }
  for (let i = full; i < n; i++) {
    const o = i * d;
    let best = Infinity;
    let arg = 0;
    for (let c = 0; c < nc; c++) {
      let s = 0;
      for (let j = 0; j < d; j++) s += x[o + j] * centroids[c * d + j];
      s = cn[c] - 2 * s;
      if (s < best) {
        best = s;
        arg = c;
      }
    }
    out[i] = arg;
  }
  return out;
}
