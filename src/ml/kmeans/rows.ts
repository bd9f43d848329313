/** Row utilities of the clustering: distinct-row counts and seeded samples. */
import type { Rng } from "../random";

/**
 * Number of distinct rows of X [n x d], counting at most `limit` (it stops there: k-means only
 * needs to know whether k distinct rows exist, and usually finds them in the first rows).
 */
export function countDistinctRows(X: Float64Array, n: number, d: number, limit: number): number {
  const found: number[] = [];
  for (let i = 0; i < n && found.length < limit; i++) {
    let seen = false;
    for (const j of found) {
      let same = true;
      for (let t = 0; t < d && same; t++) same = X[i * d + t] === X[j * d + t];
      if (same) {
        seen = true;
        break;
      }
    }
    if (!seen) found.push(i);
  }
  return found.length;
}

/** `m` of the row indices 0..n-1 (all when m ≥ n), increasing, drawn by selection sampling. */
export function sampleRows(n: number, m: number, rng: Rng): Int32Array {
  if (m >= n) return Int32Array.from({ length: n }, (_, i) => i);
  const out = new Int32Array(m);
  let need = m;
  for (let i = 0; i < n && need > 0; i++) {
    if (rng.next() * (n - i) < need) {
      out[m - need] = i;
      need--;
    }
  }
  return out;
}

/** The rows `rows` of X [n x d], as a new [rows.length x d] matrix. */
export function takeRows(X: Float64Array, d: number, rows: Int32Array): Float64Array {
  const out = new Float64Array(rows.length * d);
  for (let i = 0; i < rows.length; i++) out.set(X.subarray(rows[i] * d, rows[i] * d + d), i * d);
  return out;
}
