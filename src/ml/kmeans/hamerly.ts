/**
 * Hamerly's accelerated k-means (G. Hamerly, "Making k-means even faster", SDM 2010): exact
 * Lloyd iterations (./lloyd's contract: same labels, centers and iteration count) that skip most
 * distance computations once the clustering settles.
 *
 * Per row: an upper bound u on the distance to its center and a lower bound l on the distance to
 * every other center; per center: s = half the distance to its nearest other center. A row keeps
 * its center without any scan while u < max(s, l). When centers move by δ, u grows by its
 * center's δ and l shrinks by the largest δ of the others. The comparisons are strict, so a tie
 * always rescans and the first center wins it, as in Lloyd.
 *
 * Why Hamerly rather than Elkan (./elkan) or mini-batch: it needs 2 numbers per row (Elkan k),
 * was the faster of the two on every shape measured (see ./kmeans), and unlike mini-batch it is
 * exact.
 *
 * The assignment pass over the rows is ./row-passes' (on the host's threads on large tables, same
 * result); the bounds' bookkeeping per center and the center update stay here.
 */
import { type RestartBar, RestartJudge } from "./abandon";
import { ClusterSums, dist2, inertiaOf } from "./centers";
import { type IterationResult, totalShift } from "./lloyd";
import { RowPasses } from "./row-passes";

/**
 * `start`: the rows' nearest initial center and squared distance when known (the seeding's), and
 * a lower bound on the squared distance to the others (0 when absent), so the first assignment
 * starts from bounds instead of a full scan. `bar`: as lloydIterations'.
 */
export function hamerlyIterations(
  X: Float64Array,
  n: number,
  d: number,
  init: Float64Array,
  k: number,
  maxIter: number,
  tolAbs: number,
  start?: { labels: Int32Array; dist2: Float64Array; second?: Float64Array },
  reuse?: HamerlyBuffers,
  bar?: RestartBar,
): IterationResult {
  const judge = bar ? new RestartJudge(bar) : null;
  const passes = reuse?.passes ?? new RowPasses(X, n, d, k);
  const st = new State(passes, n, d, Float64Array.from(init), k, start && reuse?.adoptStart ? start : undefined, reuse);
  let next: Float64Array = new Float64Array(k * d);
  let full = true;
  if (start) {
    const { upper, lower } = st;
    if (st.labels !== start.labels) st.labels.set(start.labels);
    const d2 = start.dist2;
    for (let i = 0; i < n; i++) upper[i] = Math.sqrt(d2[i]);
    const second = start.second;
    if (second) for (let i = 0; i < n; i++) lower[i] = Math.sqrt(second[i]);
    else lower.fill(0);
    st.exact.fill(1);
    full = false;
  }
  let strict = false;
  let it = 0;
  while (it < maxIter) {
    it++;
    const changed = st.assign(full);
    st.sums ??= new ClusterSums(X, n, d, k, st.labels);
    const emptied = st.sums.means(st.labels, st.centers, next);
    const shift = totalShift(st.centers, next);
    const old = st.centers;
    st.centers = next;
    next = old;
    full = emptied;
    if (!full) st.moveBounds(next);
    // the first iteration's labels are new whatever `changed` says (Lloyd's start from none)
    if (changed === 0 && it > 1) {
      strict = true;
      break;
    }
    if (shift <= tolAbs) break;
    if (judge?.abandons(st.sums))
      return { centers: st.centers, labels: st.labels, inertia: judge.objective, iterations: it, converged: false, abandoned: true };
  }
  if (!strict) st.assign(full);
  return { centers: st.centers, labels: st.labels, inertia: inertiaOf(X, n, d, st.centers, st.labels), iterations: it, converged: strict };
}

/**
 * Memory the iterations may use instead of allocating (./kmeans' restarts; first-touching fresh
 * row-sized arrays is a measurable share of a fit on large tables). `adoptStart`: the start's
 * arrays become the state (labels: the result's labels; dist2 and second: overwritten by the
 * bounds), so the caller must not read them afterwards. `exact`: n bytes, any contents.
 */
export interface HamerlyBuffers {
  adoptStart?: boolean;
  exact?: Uint8Array;
  /** 2n words, any contents. */
  moves?: Int32Array;
  /** The passes over the rows to run on (./row-passes: on threads when the caller's are); with adoptStart, the start's arrays must be its. */
  passes?: RowPasses;
}

/**
 * Measure a loose bound before scanning while at least this share of the measures avoid the scan
 * (a scan of all k centers costs a few single distances with ./row-to-centers' kernel).
 */
const MEASURE_FIRST = 0.5;

class State {
  readonly labels: Int32Array;
  readonly upper: Float64Array;
  readonly lower: Float64Array;
  /** 1 while upper is the exact distance (since the last scan or measure, before centers move). */
  readonly exact: Uint8Array;
  private readonly half: Float64Array;
  private readonly moved: Float64Array;
  /** Center moves recorded by moveBounds, not yet applied to the rows' bounds: the most moved center and the two largest moves. */
  private pending = false;
  private top = -1;
  private first = 0;
  private second = 0;
  /** Whether a failed loose upper bound is measured before scanning (see assign). */
  private measureFirst = true;
  /** Built after the first assignment; the later ones move rows in it. */
  sums: ClusterSums | null = null;

  constructor(
    private readonly passes: RowPasses,
    readonly n: number,
    readonly d: number,
    public centers: Float64Array,
    readonly k: number,
    adopt?: { labels: Int32Array; dist2: Float64Array; second?: Float64Array },
    reuse?: HamerlyBuffers,
  ) {
    this.labels = adopt ? adopt.labels : passes.int32(n).fill(-1);
    this.upper = adopt ? adopt.dist2 : passes.float64(n);
    this.lower = adopt?.second ?? passes.float64(n);
    this.exact = reuse?.exact ? reuse.exact.fill(0) : passes.uint8(n);
    this.half = passes.half;
    this.moved = passes.moved;
    passes.use({ labels: this.labels, upper: this.upper, lower: this.lower, exact: this.exact, moves: reuse?.moves ?? passes.int32(2 * n) });
  }

  /** Assigns every row to its nearest center (./row-passes); `full`: without trusting the bounds. Returns the number of labels changed. */
  assign(full: boolean): number {
    if (!full) this.halfGaps();
    const { pending, top, first, second, measureFirst } = this;
    // the bounds' pending loosening (moveBounds) is applied row by row in the pass; a full scan replaces them
    this.pending = false;
    const { changed, loose, keep } = this.passes.assign(this.centers, { full, pending, top, first, second, measureFirst }, this.sums);
    if (loose > 0) this.measureFirst = keep >= MEASURE_FIRST * loose;
    return changed;
  }

  /** half[j] = half the distance from center j to its nearest other center. */
  private halfGaps(): void {
    const { centers, k, d, half } = this;
    half.fill(Infinity);
    for (let a = 0; a < k; a++) {
      for (let b = a + 1; b < k; b++) {
        const g = 0.5 * Math.sqrt(dist2(centers, a, centers, b, d));
        if (g < half[a]) half[a] = g;
        if (g < half[b]) half[b] = g;
      }
    }
  }

  /**
   * Loosens the bounds by how far each center moved from `previous`: records the moves, which the
   * next assignment applies to each row before testing it (one pass over the rows, not two).
   */
  moveBounds(previous: Float64Array): void {
    const { centers, k, d, moved } = this;
    let top = -1;
    let first = 0;
    let second = 0;
    for (let j = 0; j < k; j++) {
      const m = Math.sqrt(dist2(centers, j, previous, j, d));
      moved[j] = m;
      if (m > first) {
        second = first;
        first = m;
        top = j;
      } else if (m > second) second = m;
    }
    if (first === 0) return;
    this.pending = true;
    this.top = top;
    this.first = first;
    this.second = second;
  }
}
