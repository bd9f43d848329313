/** The varimax criterion Σ_j [ mean_i(b_ij⁴) − mean_i(b_ij²)² ] of a [p x k] matrix: what a varimax rotation maximizes. */
export function varimaxCriterion(a: Float64Array, p: number, k: number): number {
  let total = 0;
  for (let j = 0; j < k; j++) {
    let s2 = 0;
    let s4 = 0;
    for (let i = 0; i < p; i++) {
      const x2 = a[i * k + j] * a[i * k + j];
      s2 += x2;
      s4 += x2 * x2;
    }
    total += s4 / p - (s2 / p) * (s2 / p);
  }
  return total;
}
