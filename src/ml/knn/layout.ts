/**
 * The exact index's layout from a cell assignment: rows stored cell after cell, inside a cell by
 * ascending distance to the centroid (rho, stored as float32; equal rho in row order).
 */
import type { IdTable } from "./ids";
import type { ExactIndex } from "./types";

export function layoutExact(x: Float32Array, rows: number, dims: number, centroids: Float64Array, cell: Int32Array, ids: IdTable): ExactIndex {
  const nlist = centroids.length / dims;
  const start = new Uint32Array(nlist + 1);
  for (let i = 0; i < rows; i++) start[cell[i] + 1]++;
  for (let l = 0; l < nlist; l++) start[l + 1] += start[l];
  const fill = start.slice(0, nlist);
  const rowOf = new Uint32Array(rows);
  for (let i = 0; i < rows; i++) rowOf[fill[cell[i]]++] = i;
  const byRow = new Float32Array(rows);
  for (let i = 0; i < rows; i++) byRow[i] = distance(x, i * dims, centroids, cell[i] * dims, dims);
  for (let l = 0; l < nlist; l++) rowOf.subarray(start[l], start[l + 1]).sort((a, b) => byRow[a] - byRow[b] || a - b);
  const rho = new Float32Array(rows);
  const vectors = new Float32Array(rows * dims);
  for (let p = 0; p < rows; p++) {
    const r = rowOf[p];
    rho[p] = byRow[r];
    vectors.set(x.subarray(r * dims, r * dims + dims), p * dims);
  }
  return { kind: "exact", rows, dims, nlist, nprobe: nlist, recall: null, centroids, start, radius: radii(rho, start), rho, rowOf, ids, vectors };
}

/** Per cell, the largest rho (the last, rho ascending); 0 for an empty cell. */
export function radii(rho: Float32Array, start: Uint32Array): Float64Array {
  const nlist = start.length - 1;
  const out = new Float64Array(nlist);
  for (let l = 0; l < nlist; l++) if (start[l + 1] > start[l]) out[l] = rho[start[l + 1] - 1];
  return out;
}

/** Euclidean distance between a[ao ..] and b[bo ..] over d values. */
export function distance(a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number, d: number): number {
  let s = 0;
  for (let j = 0; j < d; j++) {
    const t = a[ao + j] - b[bo + j];
    s += t * t;
  }
  return Math.sqrt(s);
}
