/**
 * Elkan's accelerated k-means (C. Elkan, "Using the triangle inequality to accelerate k-means",
 * ICML 2003): exact Lloyd iterations (./lloyd's contract: same labels, centers and iteration
 * count) with one lower bound per (row, center) instead of Hamerly's single one, so a row near a
 * boundary measures only the centers that could still be closer, not all k.
 *
 * Per row: u, an upper bound on the distance to its center (exact when not `stale`), and l[j] ≤
 * the distance to center j. Center j is skipped while u < l[j] or u < ½·|c_a - c_j|; the whole
 * row while u < ½·(distance from c_a to its nearest other center). When centers move by δ, u grows
 * by its center's δ and each l[j] shrinks by δ_j. The comparisons are strict and a tie with a
 * lower-numbered center switches to it, so the first nearest center wins, as in Lloyd.
 *
 * Costs n·k bounds (8 bytes each), updated every iteration: in this engine that upkeep costs more
 * than the distances it saves, so ./kmeans runs Hamerly by default; Elkan is kept selectable for
 * the benchmark that shows it.
 */
import { type RestartBar, RestartJudge } from "./abandon";
import { ClusterSums, dist2, inertiaOf } from "./centers";
import { type IterationResult, totalShift } from "./lloyd";

/** `start`: as hamerlyIterations' (the seeding's nearest centers and squared distances); `bar`: as lloydIterations'. */
export function elkanIterations(
  X: Float64Array,
  n: number,
  d: number,
  init: Float64Array,
  k: number,
  maxIter: number,
  tolAbs: number,
  start?: { labels: Int32Array; dist2: Float64Array },
  bar?: RestartBar,
): IterationResult {
  const judge = bar ? new RestartJudge(bar) : null;
  const st = new State(X, n, d, Float64Array.from(init), k);
  if (start) {
    st.labels.set(start.labels);
    for (let i = 0; i < n; i++) st.upper[i] = Math.sqrt(start.dist2[i]);
    st.stale.fill(0);
  }
  let next: Float64Array = new Float64Array(k * d);
  let strict = false;
  let it = 0;
  while (it < maxIter) {
    it++;
    const changed = st.assign();
    st.sums ??= new ClusterSums(X, n, d, k, st.labels);
    const emptied = st.sums.means(st.labels, st.centers, next);
    const shift = totalShift(st.centers, next);
    const old = st.centers;
    st.centers = next;
    next = old;
    if (emptied) st.forget();
    else st.moveBounds(next);
    // the first iteration's labels are new whatever `changed` says (Lloyd's start from none)
    if (changed === 0 && it > 1) {
      strict = true;
      break;
    }
    if (shift <= tolAbs) break;
    if (judge?.abandons(st.sums))
      return { centers: st.centers, labels: st.labels, inertia: judge.objective, iterations: it, converged: false, abandoned: true };
  }
  if (!strict) st.assign();
  return { centers: st.centers, labels: st.labels, inertia: inertiaOf(X, n, d, st.centers, st.labels), iterations: it, converged: strict };
}

class State {
  readonly labels: Int32Array;
  readonly upper: Float64Array;
  /** [n x k]. */
  readonly lower: Float64Array;
  /** 1 when upper is only a bound. */
  readonly stale: Uint8Array;
  /** [k x k] half distances between centers, and each center's smallest. */
  private readonly halfGap: Float64Array;
  private readonly halfMin: Float64Array;
  private readonly moved: Float64Array;
  sums: ClusterSums | null = null;

  constructor(
    readonly X: Float64Array,
    readonly n: number,
    readonly d: number,
    public centers: Float64Array,
    readonly k: number,
  ) {
    this.labels = new Int32Array(n);
    this.upper = new Float64Array(n).fill(Infinity);
    this.lower = new Float64Array(n * k);
    this.stale = new Uint8Array(n).fill(1);
    this.halfGap = new Float64Array(k * k);
    this.halfMin = new Float64Array(k);
    this.moved = new Float64Array(k);
  }

  /** Assigns every row to its nearest center; returns the number of labels changed. */
  assign(): number {
    const { X, n, d, k, centers, labels, upper, lower, stale, halfGap, halfMin } = this;
    this.gaps();
    let changed = 0;
    for (let i = 0; i < n; i++) {
      let a = labels[i];
      let u = upper[i];
      if (u < halfMin[a]) continue;
      const li = i * k;
      if (stale[i] === 1) {
        // measured once here rather than at the first center the stale bound lets through:
        // nearly every row that gets this far needs it
        u = Math.sqrt(dist2(X, i, centers, a, d));
        lower[li + a] = u;
        stale[i] = 0;
        if (u < halfMin[a]) {
          upper[i] = u;
          continue;
        }
      }
      const first = a;
      for (let j = 0; j < k; j++) {
        // one test for both bounds (the diagonal gap is infinite: a row never re-measures its center)
        const l = lower[li + j];
        const g = halfGap[a * k + j];
        if (u < Math.max(l, g)) continue;
        const e = Math.sqrt(dist2(X, i, centers, j, d));
        lower[li + j] = e;
        if (e < u || (e === u && j < a)) {
          a = j;
          u = e;
        }
      }
      upper[i] = u;
      if (a !== first) {
        this.sums?.move(i, first, a);
        labels[i] = a;
        changed++;
      }
    }
    return changed;
  }

  /** halfGap[a][b] = ½·|c_a - c_b| (∞ for b = a); halfMin[a] = its smallest over b ≠ a. */
  private gaps(): void {
    const { centers, k, d, halfGap, halfMin } = this;
    halfMin.fill(Infinity);
    for (let a = 0; a < k; a++) {
      halfGap[a * k + a] = Infinity;
      for (let b = a + 1; b < k; b++) {
        const g = 0.5 * Math.sqrt(dist2(centers, a, centers, b, d));
        halfGap[a * k + b] = halfGap[b * k + a] = g;
        if (g < halfMin[a]) halfMin[a] = g;
        if (g < halfMin[b]) halfMin[b] = g;
      }
    }
  }

  /** Loosens the bounds by how far each center moved from `previous`. */
  moveBounds(previous: Float64Array): void {
    const { centers, k, d, n, labels, upper, lower, stale, moved } = this;
    let any = false;
    for (let j = 0; j < k; j++) any = (moved[j] = Math.sqrt(dist2(centers, j, previous, j, d))) > 0 || any;
    if (!any) return;
    for (let i = 0; i < n; i++) {
      upper[i] += moved[labels[i]];
      stale[i] = 1;
      const li = i * k;
      for (let j = 0; j < k; j++) {
        const v = lower[li + j] - moved[j];
        lower[li + j] = Math.max(v, 0);
      }
    }
  }

  /** No bound is known any more (after an emptied cluster took a row). */
  forget(): void {
    this.upper.fill(Infinity);
    this.lower.fill(0);
    this.stale.fill(1);
  }
}
