/**
 * Varimax rotation (Kaiser 1958): the orthogonal rotation R of a loading matrix A [p x k] that
 * maximizes the variance of the squared loadings within each factor, so each factor ends up with
 * a few large loadings and many near zero ("simple structure").
 *
 * Kaiser's pairwise form: sweep over every pair of factors, rotating the two columns by the
 * angle that maximizes the criterion for that pair (closed form, below), until a whole sweep
 * moves no angle by more than `tol`. No SVD is needed, and the result is the criterion's optimum
 * to machine precision rather than to a loose relative-change tolerance.
 *
 * Rows are normalized to unit length first (Kaiser normalization, R's default) so rows with small
 * communalities weigh as much as the others; rotation is orthogonal either way, so every row's
 * communality (sum of its squared loadings) is unchanged.
 */

export interface VarimaxOptions {
  /** Kaiser normalization (default true). */
  normalize?: boolean;
  /** Stop once no pair rotates by more than this angle (radians) in a sweep. */
  tol?: number;
  maxSweeps?: number;
}

/** The rotation R (row-major [k x k], orthogonal) such that A·R is varimax-rotated. */
export function varimaxRotation(a: Float64Array, p: number, k: number, opts: VarimaxOptions = {}): Float64Array {
  const tol = opts.tol ?? 1e-12;
  const maxSweeps = opts.maxSweeps ?? 500;
  const b = Float64Array.from(a);
  if (opts.normalize ?? true) {
    for (let i = 0; i < p; i++) {
      let h = 0;
      for (let j = 0; j < k; j++) h += b[i * k + j] * b[i * k + j];
      if (h > 0) for (let j = 0; j < k; j++) b[i * k + j] /= Math.sqrt(h);
    }
  }
  const r = new Float64Array(k * k);
  for (let j = 0; j < k; j++) r[j * k + j] = 1;
  for (let sweep = 0; sweep < maxSweeps; sweep++) {
    let largest = 0;
    for (let j = 0; j < k - 1; j++) {
      for (let l = j + 1; l < k; l++) {
        const phi = pairAngle(b, p, k, j, l);
        if (Math.abs(phi) > largest) largest = Math.abs(phi);
        if (phi === 0) continue;
        rotateColumns(b, p, k, j, l, phi);
        rotateColumns(r, k, k, j, l, phi);
      }
    }
    if (largest <= tol) break;
  }
  return r;
}

/**
 * Best angle φ for columns x = b[:,j], y = b[:,l] rotated to (x cosφ + y sinφ, −x sinφ + y cosφ).
 * With u = x² − y², v = 2xy the pair's criterion is, up to a constant,
 * cos4φ·(Σ(u² − v²) − ((Σu)² − (Σv)²)/p) + sin4φ·(2Σuv − 2ΣuΣv/p), maximal at the atan2 below.
 */
function pairAngle(b: Float64Array, p: number, k: number, j: number, l: number): number {
  let su = 0;
  let sv = 0;
  let suv2 = 0;
  let suv = 0;
  for (let i = 0; i < p; i++) {
    const x = b[i * k + j];
    const y = b[i * k + l];
    const u = x * x - y * y;
    const v = 2 * x * y;
    su += u;
    sv += v;
    suv2 += u * u - v * v;
    suv += u * v;
  }
  const num = 2 * suv - (2 * su * sv) / p;
  const den = suv2 - (su * su - sv * sv) / p;
  if (num === 0 && den >= 0) return 0;
  return Math.atan2(num, den) / 4;
}

function rotateColumns(m: Float64Array, rows: number, k: number, j: number, l: number, phi: number): void {
  const c = Math.cos(phi);
  const s = Math.sin(phi);
  for (let i = 0; i < rows; i++) {
    const x = m[i * k + j];
    const y = m[i * k + l];
    m[i * k + j] = c * x + s * y;
    m[i * k + l] = c * y - s * x;
  }
}
