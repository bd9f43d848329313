/**
 * Eigen-decomposition of a real symmetric matrix, in float64: Householder reduction to
 * tridiagonal form, then implicit symmetric QR steps with Wilkinson shifts (Golub & Van Loan,
 * "Matrix Computations", 8.3). O(n³) with small constants: a 500 x 500 covariance takes well
 * under a second, where cyclic Jacobi would need several full sweeps of 4n³ each.
 *
 * Eigenvectors are kept as ROWS of a row-major matrix (vectors[i * n + j] = component j of
 * eigenvector i) so that every rotation updates two contiguous rows.
 */

export interface SymmetricEigen {
  /** Eigenvalues, descending. */
  values: Float64Array;
  /** Row-major [n x n]; row i is the unit eigenvector of values[i]. */
  vectors: Float64Array;
}

const EPS = 2.220446049250313e-16;
/** QR sweeps allowed per eigenvalue before giving up (a handful is typical). */
const MAX_SWEEPS_PER_VALUE = 60;

/** Eigenpairs of the symmetric row-major [n x n] matrix `a` (only read; the lower triangle is used). */
export function symmetricEigen(a: Float64Array, n: number): SymmetricEigen {
  if (a.length !== n * n) throw new Error(`matrix has ${a.length} entries, expected ${n}x${n}`);
  const work = Float64Array.from(a);
  const z = identity(n);
  const d = new Float64Array(n);
  const e = new Float64Array(Math.max(0, n - 1));
  tridiagonalize(work, n, z, d, e);
  tridiagonalQr(d, e, z, n);
  return sortDescending(d, z, n);
}

function identity(n: number): Float64Array {
  const z = new Float64Array(n * n);
  for (let i = 0; i < n; i++) z[i * n + i] = 1;
  return z;
}

/**
 * Reduces `a` (overwritten) to tridiagonal T = Qᵀ A Q by Householder reflections, H = I − 2vvᵀ
 * zeroing column k below its sub-diagonal; accumulates Z = Qᵀ (rows: the transformed basis).
 */
function tridiagonalize(a: Float64Array, n: number, z: Float64Array, d: Float64Array, e: Float64Array): void {
  const v = new Float64Array(n);
  const w = new Float64Array(n);
  for (let k = 0; k < n - 2; k++) {
    const lo = k + 1;
    let norm2 = 0;
    for (let i = lo; i < n; i++) norm2 += a[i * n + k] * a[i * n + k];
    const x0 = a[lo * n + k];
    const alpha = x0 >= 0 ? -Math.sqrt(norm2) : Math.sqrt(norm2);
    // v = x − alpha·e1, scaled to unit length; nothing to do when the column is already reduced
    let vnorm2 = norm2 - x0 * x0;
    if (vnorm2 === 0) continue;
    v[lo] = x0 - alpha;
    vnorm2 += v[lo] * v[lo];
    const inv = 1 / Math.sqrt(vnorm2);
    v[lo] *= inv;
    for (let i = lo + 1; i < n; i++) v[i] = a[i * n + k] * inv;
    // trailing block: A ← A − 2(v wᵀ + w vᵀ) with p = A v, w = p − (vᵀp) v
    let vp = 0;
    for (let i = lo; i < n; i++) {
      let s = 0;
      const row = i * n;
      for (let j = lo; j < n; j++) s += a[row + j] * v[j];
      w[i] = s;
      vp += v[i] * s;
    }
    for (let i = lo; i < n; i++) w[i] -= vp * v[i];
    for (let i = lo; i < n; i++) {
      const row = i * n;
      const vi = 2 * v[i];
      const wi = 2 * w[i];
      for (let j = lo; j < n; j++) a[row + j] -= vi * w[j] + wi * v[j];
    }
    a[lo * n + k] = alpha;
    a[k * n + lo] = alpha;
    for (let i = lo + 1; i < n; i++) a[i * n + k] = a[k * n + i] = 0;
    // Z ← H Z (rows lo..n−1 change)
    w.fill(0);
    for (let i = lo; i < n; i++) {
      const row = i * n;
      const vi = 2 * v[i];
      for (let j = 0; j < n; j++) w[j] += vi * z[row + j];
    }
    for (let i = lo; i < n; i++) {
      const row = i * n;
      const vi = v[i];
      for (let j = 0; j < n; j++) z[row + j] -= vi * w[j];
    }
  }
  for (let i = 0; i < n; i++) d[i] = a[i * n + i];
  for (let i = 0; i < n - 1; i++) e[i] = a[(i + 1) * n + i];
}

/** Negligible off-diagonal: relative to its neighbours (LAPACK's test), or underflowing. */
function negligible(e: number, d1: number, d2: number): boolean {
  const x = Math.abs(e);
  return x <= EPS * (Math.abs(d1) + Math.abs(d2)) || x < 1e-300;
}

/**
 * Diagonalizes the tridiagonal (d, e) in place by implicit QR steps on the unreduced blocks
 * (bottom up), applying every Givens rotation to the rows of `z`.
 */
function tridiagonalQr(d: Float64Array, e: Float64Array, z: Float64Array, n: number): void {
  let budget = MAX_SWEEPS_PER_VALUE * Math.max(1, n);
  let hi = n - 1;
  while (hi > 0) {
    if (negligible(e[hi - 1], d[hi - 1], d[hi])) {
      e[hi - 1] = 0;
      hi--;
      continue;
    }
    let lo = hi - 1;
    while (lo > 0 && !negligible(e[lo - 1], d[lo - 1], d[lo])) lo--;
    if (lo > 0) e[lo - 1] = 0;
    if (budget-- <= 0) throw new Error("symmetric eigen-decomposition did not converge");
    qrStep(d, e, z, n, lo, hi);
  }
}

/** One implicit shifted QR step on the block lo..hi (chasing the bulge down). */
function qrStep(d: Float64Array, e: Float64Array, z: Float64Array, n: number, lo: number, hi: number): void {
  // Wilkinson shift: the eigenvalue of the trailing 2x2 closer to d[hi]
  const delta = (d[hi - 1] - d[hi]) / 2;
  const b2 = e[hi - 1] * e[hi - 1];
  const mu = d[hi] - b2 / (delta + (delta >= 0 ? 1 : -1) * Math.hypot(delta, e[hi - 1]));
  let x = d[lo] - mu;
  let y = e[lo];
  for (let k = lo; k < hi; k++) {
    const r = Math.hypot(x, y);
    const c = r === 0 ? 1 : x / r;
    const s = r === 0 ? 0 : y / r;
    if (k > lo) e[k - 1] = r;
    // rotate rows/cols k, k+1: G T Gᵀ with G = [[c, s], [−s, c]]
    const a = d[k];
    const b = e[k];
    const dd = d[k + 1];
    d[k] = c * c * a + 2 * c * s * b + s * s * dd;
    d[k + 1] = s * s * a - 2 * c * s * b + c * c * dd;
    e[k] = c * s * (dd - a) + (c * c - s * s) * b;
    if (k + 1 < hi) {
      y = s * e[k + 1]; // the bulge at (k, k+2)
      e[k + 1] *= c;
      x = e[k];
    }
    // Z ← G Z
    const rk = k * n;
    const rk1 = rk + n;
    for (let j = 0; j < n; j++) {
      const zk = z[rk + j];
      const zk1 = z[rk1 + j];
      z[rk + j] = c * zk + s * zk1;
      z[rk1 + j] = c * zk1 - s * zk;
    }
  }
}

function sortDescending(d: Float64Array, z: Float64Array, n: number): SymmetricEigen {
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => d[j] - d[i] || i - j);
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  order.forEach((src, dst) => {
    values[dst] = d[src];
    vectors.set(z.subarray(src * n, src * n + n), dst * n);
  });
  return { values, vectors };
}
