/**
 * Nearest centroid of every row, fast for many centroids: brute force up to BRUTE_MAX centroids,
 * beyond that an exact search index over the centroids themselves (√nc cells from a quick
 * k-means of the centroids, brute-forced), queried for each row's 1 nearest neighbour. Same
 * answer as brute force (exact search, lowest centroid at equal distances), a fraction of the
 * distance computations: about √nc centroid cells plus the few centroids the bounds keep.
 */
import { kmeansSteps, nearestCentroid } from "./kmeans";
import { layoutExact } from "./layout";
import { searchRows } from "./search";

const BRUTE_MAX = 64;
/** Rows converted to float64 queries at a time. */
const CHUNK = 4096;
const NO_IDS = { kind: "u32", values: new Uint32Array(0) } as const;

export function assignCells(x: Float32Array, n: number, d: number, centroids: Float64Array): Int32Array {
  const nc = centroids.length / d;
  if (nc <= BRUTE_MAX) return nearestCentroid(x, n, d, centroids);
  const points = Float32Array.from(centroids);
  const steps = kmeansSteps(points, nc, d, Math.round(Math.sqrt(nc)), 0, 5);
  let r = steps.next();
  while (!r.done) r = steps.next();
  const upper = r.value;
  const index = layoutExact(points, nc, d, upper, nearestCentroid(points, nc, d, upper), NO_IDS);
  const out = new Int32Array(n);
  const q = new Float64Array(CHUNK * d);
  for (let a = 0; a < n; a += CHUNK) {
    const m = Math.min(CHUNK, n - a);
    for (let t = 0; t < m * d; t++) q[t] = x[a * d + t];
    out.set(searchRows(index, q, m, 1).rows, a);
  }
  return out;
}
