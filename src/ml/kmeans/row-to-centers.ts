/**
 * Squared distances of the row at `xi` of X to the k centers into `out`, four columns at a time
 * (the row's four values loaded once for all centers). Each distance still adds its squares one
 * at a time in column order, so it has the bits of ./centers dist2.
 */
export function rowToCenters(X: Float64Array, xi: number, centers: Float64Array, k: number, d: number, out: Float64Array): void {
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
