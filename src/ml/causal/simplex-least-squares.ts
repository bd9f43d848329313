/**
 * min over convex weights c (c ≥ 0, Σc = 1) of the quadratic c'Gc − 2b'c, exactly: the optimum
 * lies in the relative interior of some face of the simplex (a support S), where it is the
 * equality-constrained least-squares solution on S (G_S c + λ1 = b_S, 1'c = 1). With the few
 * candidates a causal model blends (4 learners: 15 supports) trying every support is cheaper and
 * simpler than an iterative solver, and never stops short of the optimum.
 */

/** Solves the square system A x = y in place by Gaussian elimination with partial pivoting; null when singular. */
function solve(A: number[][], y: number[]): number[] | null {
  const n = y.length;
  const scale = Math.max(1e-300, ...A.map((r) => Math.max(...r.map(Math.abs))));
  for (let col = 0; col < n; col++) {
    let p = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(A[r][col]) > Math.abs(A[p][col])) p = r;
    if (Math.abs(A[p][col]) <= 1e-12 * scale) return null;
    [A[col], A[p]] = [A[p], A[col]];
    [y[col], y[p]] = [y[p], y[col]];
    for (let r = col + 1; r < n; r++) {
      const f = A[r][col] / A[col][col];
      for (let k = col; k < n; k++) A[r][k] -= f * A[col][k];
      y[r] -= f * y[col];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = y[r];
    for (let k = r + 1; k < n; k++) s -= A[r][k] * x[k];
    x[r] = s / A[r][r];
  }
  return x;
}

/** The quadratic's value at c. @internal exported for test/ml/causal-simplex.test.ts */
export function quadratic(G: number[][], b: number[], c: number[]): number {
  let v = 0;
  for (let i = 0; i < c.length; i++) {
    if (c[i] === 0) continue;
    v -= 2 * b[i] * c[i];
    for (let k = 0; k < c.length; k++) v += c[i] * G[i][k] * c[k];
  }
  return v;
}

/** The convex weights minimising c'Gc − 2b'c (G symmetric positive semi-definite, k ≤ ~10). */
export function simplexLeastSquares(G: number[][], b: number[]): number[] {
  const k = b.length;
  let best: number[] = [];
  let bestValue = Infinity;
  for (let mask = 1; mask < 1 << k; mask++) {
    const S: number[] = [];
    for (let i = 0; i < k; i++) if (mask & (1 << i)) S.push(i);
    const m = S.length;
    const A = S.map((i) => [...S.map((j) => G[i][j]), 1]);
    A.push([...new Array<number>(m).fill(1), 0]);
    const x = solve(A, [...S.map((i) => b[i]), 1]);
    if (!x || x.slice(0, m).some((v) => v < 0)) continue;
    const c = new Array<number>(k).fill(0);
    S.forEach((i, t) => (c[i] = x[t]));
    const value = quadratic(G, b, c);
    if (value < bestValue) {
      bestValue = value;
      best = c;
    }
  }
  return best;
}
