/**
 * Greedy k-means++ seeding (Arthur & Vassilvitskii 2007, with the "greedy" refinement
 * scikit-learn also uses): the first center is a uniformly drawn row; each next one is the best
 * of L = 2 + floor(ln k) rows drawn with probability proportional to their squared distance to
 * the nearest center so far, "best" meaning the candidate that leaves the smallest total squared
 * distance. Greedy trials make a bad draw much less likely than plain k-means++.
 *
 * On large tables (more than TRIAL_ROWS rows) the candidates' totals are estimated on a fixed
 * seeded sample of TRIAL_ROWS rows, and only the winner is measured against every row: the
 * seeding then costs about one pass per center instead of L (the draws themselves stay exact
 * D² sampling over every row). Choosing between candidates needs only their ranking, which a
 * sample of that size gets right unless the totals are within a fraction of a percent, when
 * either candidate does as well.
 *
 * Exact speed-up: a candidate c can only get closer to row x than x's nearest center a when
 * |c - a| < 2·|x - a| (triangle inequality), so rows with |c - a|² ≥ 4·D(x) are skipped without
 * computing their distance to c.
 *
 * Rows at squared distance 0 from a center are never drawn, so the k centers are distinct rows
 * whenever the data has k distinct rows (the caller checks that).
 *
 * The seeding ends knowing every row's nearest seed (the first on a tie), its squared distance
 * and a lower bound on the distance to the other seeds: the first assignment of the iterations
 * and its bounds, so it need not scan.
 */
import type { Rng } from "../random";
import { RowPasses } from "./row-passes";

/** Rows the candidates are scored on (every row below this). */
const TRIAL_ROWS = 16_384;

export interface Seeding {
  /** [k x d]. */
  centers: Float64Array;
  /** Nearest center of each row (the first on a tie). */
  labels: Int32Array;
  /** Squared distance of each row to that center. */
  dist2: Float64Array;
  /** A lower bound on each row's squared distance to every other center (Hamerly's first lower bound). */
  second: Float64Array;
}

/**
 * Row-sized arrays the seeding may write into instead of allocating its own (the restarts of
 * ./kmeans reuse them: on large tables first-touching fresh memory costs a measurable share of
 * a fit). Their contents on entry do not matter. `labels`, `dist2` and `second` of the result
 * are `nearest`, `closest` and `second`.
 */
export interface SeedingBuffers {
  closest: Float64Array;
  nearest: Int32Array;
  cumulative: Float64Array;
  second: Float64Array;
  /** The trial sample's rows (TRIAL_ROWS x d), made on first use. */
  trialX?: Float64Array;
}

/** `passes`: where the row passes will run (its allocators give shared memory when on threads). */
export function seedingBuffers(n: number, passes?: RowPasses): SeedingBuffers {
  const f64 = (length: number) => (passes ? passes.float64(length) : new Float64Array(length));
  return { closest: f64(n), nearest: passes ? passes.int32(n) : new Int32Array(n), cumulative: new Float64Array(n), second: f64(n) };
}

/** `passes`: the row passes to run the updates on (./row-passes), made for X and k; the buffers' arrays must be its. */
export function kmeansPlusPlus(
  X: Float64Array,
  n: number,
  d: number,
  k: number,
  rng: Rng,
  buffers: SeedingBuffers = seedingBuffers(n),
  passes: RowPasses = new RowPasses(X, n, d, k),
): Seeding {
  const centers = new Float64Array(k * d);
  const L = 2 + Math.floor(Math.log(k));
  const first = rng.int(n);
  centers.set(X.subarray(first * d, first * d + d), 0);
  const { closest, nearest, cumulative, second } = buffers;
  passes.use({ labels: nearest, upper: closest, lower: second });
  let trial: TrialSample | null = null;
  if (n > TRIAL_ROWS) {
    buffers.trialX ??= new Float64Array(TRIAL_ROWS * d);
    trial = new TrialSample(X, d, Int32Array.from({ length: TRIAL_ROWS }, () => rng.int(n)).sort(), buffers.trialX);
  }
  const cand = new Float64Array(d);
  const toCenter = new Float64Array(k);
  const toCenterRoot = new Float64Array(k);
  // the first center is the update of rows that are infinitely far from every center (so every
  // row measures its distance to it: the same bits as a plain pass)
  nearest.fill(0);
  closest.fill(Infinity);
  second.fill(Infinity);
  cand.set(centers.subarray(0, d));
  passes.seed(0, cand, toCenter, toCenterRoot);
  // running sums of `closest`, what the D² draws search (taken after every pass that changes it)
  let acc = runningSums(closest, cumulative);
  for (let c = 1; c < k; c++) {
    let best = -1;
    let bestPot = Infinity;
    trial?.gather(closest, nearest);
    for (let t = 0; t < L; t++) {
      const row = draw(cumulative, rng.next() * acc);
      load(X, d, row, centers, c, cand, toCenter);
      const pot = trial
        ? potential(trial.X, d, trial.rows.length, trial.closest, trial.nearest, cand, toCenter)
        : potential(X, d, n, closest, nearest, cand, toCenter);
      if (pot < bestPot) {
        bestPot = pot;
        best = row;
      }
    }
    load(X, d, best, centers, c, cand, toCenter);
    for (let j = 0; j < c; j++) toCenterRoot[j] = Math.sqrt(toCenter[j]);
    passes.seed(c, cand, toCenter, toCenterRoot);
    acc = runningSums(closest, cumulative);
    centers.set(cand, c * d);
  }
  return { centers, labels: nearest, dist2: closest, second };
}

/** cumulative[i] = closest[0] + ... + closest[i], added in row order; returns the total. */
function runningSums(closest: Float64Array, cumulative: Float64Array): number {
  let acc = 0;
  for (let i = 0; i < closest.length; i++) cumulative[i] = acc += closest[i];
  return acc;
}

/** Copies row `row` to `cand` and its squared distances to centers 0..c-1 to `toCenter`. */
function load(X: Float64Array, d: number, row: number, centers: Float64Array, c: number, cand: Float64Array, toCenter: Float64Array): void {
  cand.set(X.subarray(row * d, row * d + d));
  for (let j = 0; j < c; j++) toCenter[j] = rowDist2(centers, j * d, cand, d);
}

/** Squared distance of the row at `at` to `cand`: the squares added in column order (./centers dist2's bits), unrolled by 4. */
function rowDist2(X: Float64Array, at: number, cand: Float64Array, d: number): number {
  let e = 0;
  let u = 0;
  for (; u + 3 < d; u += 4) {
    const w0 = X[at + u] - cand[u];
    const w1 = X[at + u + 1] - cand[u + 1];
    const w2 = X[at + u + 2] - cand[u + 2];
    const w3 = X[at + u + 3] - cand[u + 3];
    e += w0 * w0;
    e += w1 * w1;
    e += w2 * w2;
    e += w3 * w3;
  }
  for (; u < d; u++) {
    const w = X[at + u] - cand[u];
    e += w * w;
  }
  return e;
}

/** Total squared distance of the rows of X to their nearest center once `cand` is one. */
function potential(
  X: Float64Array,
  d: number,
  n: number,
  closest: Float64Array,
  nearest: Int32Array,
  cand: Float64Array,
  toCenter: Float64Array,
): number {
  let p = 0;
  for (let i = 0; i < n; i++) {
    const cur = closest[i];
    if (toCenter[nearest[i]] < 4 * cur) {
      const e = rowDist2(X, i * d, cand, d);
      p += Math.min(e, cur);
    } else p += cur;
  }
  return p;
}

/**
 * The rows candidates are scored on, copied together (scoring them in place would jump across
 * the whole table, one cache miss per row), with their current nearest center and distance.
 */
class TrialSample {
  readonly X: Float64Array;
  readonly closest: Float64Array;
  readonly nearest: Int32Array;
  constructor(
    all: Float64Array,
    d: number,
    readonly rows: Int32Array,
    into: Float64Array,
  ) {
    this.X = into;
    // a plain copy loop: a subarray per row costs more than the copy at this size
    for (let r = 0, o = 0; r < rows.length; r++) for (let t = 0, at = rows[r] * d; t < d; t++) into[o++] = all[at + t];
    this.closest = new Float64Array(rows.length);
    this.nearest = new Int32Array(rows.length);
  }

  gather(closest: Float64Array, nearest: Int32Array): void {
    for (let r = 0; r < this.rows.length; r++) {
      this.closest[r] = closest[this.rows[r]];
      this.nearest[r] = nearest[this.rows[r]];
    }
  }
}

/** The first row whose cumulative weight exceeds r (rows of weight 0 are never returned). */
function draw(cumulative: Float64Array, r: number): number {
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cumulative[mid] > r) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
