/**
 * Mean silhouette coefficient (Rousseeuw 1987), exact: O(s²·d) for s rows, so the caller passes
 * a sample (clustering: at most 2000 rows). For row i in cluster A: a = mean distance to the
 * other rows of A, b = the smallest mean distance to the rows of another cluster,
 * s(i) = (b - a) / max(a, b), and 0 when A holds only i (scikit-learn's convention).
 * Euclidean distances; each pair is computed once.
 */

/** Mean silhouette over the rows, or null when fewer than 2 clusters (or 2 rows) are present. */
export function silhouetteScore(X: Float64Array, n: number, d: number, labels: Int32Array, k: number): number | null {
  const size = new Float64Array(k);
  for (let i = 0; i < n; i++) size[labels[i]]++;
  let present = 0;
  for (let c = 0; c < k; c++) if (size[c] > 0) present++;
  if (present < 2 || present >= n) return null;
  // sums[i * k + c] = sum of distances from row i to the rows of cluster c
  const sums = new Float64Array(n * k);
  for (let i = 0; i < n; i++) {
    const li = labels[i];
    const xi = i * d;
    for (let j = i + 1; j < n; j++) {
      const xj = j * d;
      let s = 0;
      for (let t = 0; t < d; t++) {
        const v = X[xi + t] - X[xj + t];
        s += v * v;
      }
      const dist = Math.sqrt(s);
      sums[i * k + labels[j]] += dist;
      sums[j * k + li] += dist;
    }
  }
  let total = 0;
  for (let i = 0; i < n; i++) {
    const own = labels[i];
    if (size[own] <= 1) continue;
    const a = sums[i * k + own] / (size[own] - 1);
    let b = Infinity;
    for (let c = 0; c < k; c++) {
      if (c === own || size[c] === 0) continue;
      const m = sums[i * k + c] / size[c];
      if (m < b) b = m;
    }
    const den = Math.max(a, b);
    total += den > 0 ? (b - a) / den : 0;
  }
  return total / n;
}
