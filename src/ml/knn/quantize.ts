/**
 * The ivf index's 8-bit vectors: per cell and dimension, the cell's values span [lo, lo + 255 ×
 * step] (its min and max) and each value is stored as the nearest of those 256 levels, so the
 * error is at most step / 2 (1/510 of the cell's extent in that dimension, far finer than a global
 * scale would give). rho is recomputed on the decoded vectors, which are what ivf search measures,
 * so its pruning bounds stay exact for them.
 */
import { distance, radii } from "./layout";
import type { ExactIndex, IvfIndex } from "./types";

/** The 8-bit form of an exact index: same cells and centroids, rows re-sorted by decoded rho. */
export function quantize(ex: ExactIndex): IvfIndex {
  const { rows, dims: d, nlist, start, centroids } = ex;
  const lo = new Float32Array(nlist * d);
  const step = new Float32Array(nlist * d);
  const codes = new Uint8Array(rows * d);
  const rho = new Float32Array(rows);
  const rowOf = new Uint32Array(rows);
  const decoded = new Float64Array(d);
  for (let l = 0; l < nlist; l++) {
    const a = start[l];
    const b = start[l + 1];
    if (a === b) continue;
    for (let j = 0; j < d; j++) {
      let mn = Infinity;
      let mx = -Infinity;
      for (let p = a; p < b; p++) {
        const v = ex.vectors[p * d + j];
        if (v < mn) mn = v;
        if (v > mx) mx = v;
      }
      lo[l * d + j] = mn;
      step[l * d + j] = mx > mn ? (mx - mn) / 255 : 0;
    }
    const cellRho = new Float32Array(b - a);
    const cellCodes = new Uint8Array((b - a) * d);
    for (let p = a; p < b; p++) {
      for (let j = 0; j < d; j++) {
        // the stored (float32) lo and step, as search decodes them
        const lj = lo[l * d + j];
        const sj = step[l * d + j];
        const c = sj > 0 ? Math.min(255, Math.max(0, Math.round((ex.vectors[p * d + j] - lj) / sj))) : 0;
        cellCodes[(p - a) * d + j] = c;
        decoded[j] = lj + sj * c;
      }
      cellRho[p - a] = distance(decoded, 0, centroids, l * d, d);
    }
    const perm = Int32Array.from({ length: b - a }, (_, i) => i);
    perm.sort((u, v) => cellRho[u] - cellRho[v] || ex.rowOf[a + u] - ex.rowOf[a + v]);
    for (let t = 0; t < perm.length; t++) {
      const u = perm[t];
      rho[a + t] = cellRho[u];
      rowOf[a + t] = ex.rowOf[a + u];
      codes.set(cellCodes.subarray(u * d, u * d + d), (a + t) * d);
    }
  }
  return {
    kind: "ivf",
    rows,
    dims: d,
    nlist,
    nprobe: nlist,
    recall: null,
    centroids,
    start,
    radius: radii(rho, start),
    rho,
    rowOf,
    ids: ex.ids,
    lo,
    step,
    codes,
  };
}
