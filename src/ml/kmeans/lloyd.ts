/**
 * The k-means iterations, with one contract for every variant:
 * - `lloydIterations`: plain Lloyd (every row against every center, every iteration), the
 *   reference the accelerated variants are tested against;
 * - `hamerlyIterations` (./hamerly), `elkanIterations` (./elkan): the same iterations, skipping
 *   distance computations that bounds prove useless. Same labels, centers and iteration count.
 *
 * One iteration = assign every row to its nearest center (first on a tie), then move each
 * center to its cluster's mean (./centers ClusterSums: built from the first assignment, then
 * updated by the rows that change cluster, in row order). Stopping follows scikit-learn's
 * KMeans: stop when no label changed ("strict" convergence), or when the centers moved by at
 * most `tolAbs` in total squared distance, or after `maxIter` iterations; unless strict, the
 * rows are assigned once more to the final centers, so labels and centers agree.
 *
 * `bar` (./abandon): the best restart so far; a restart clearly heading for a worse optimum is
 * abandoned after a center update (`abandoned`, its objective then as `inertia`), the same way
 * in every variant.
 */
import { type RestartBar, RestartJudge } from "./abandon";
import { assignNearest, ClusterSums, inertiaOf } from "./centers";

export interface IterationResult {
  centers: Float64Array;
  labels: Int32Array;
  inertia: number;
  /** Center updates done. */
  iterations: number;
  /** True when the labels stopped changing (not only the tolerance or maxIter). */
  converged: boolean;
  /** True when given up as clearly worse than the best restart (./abandon): labels and centers are then those of the last update, `inertia` its objective. */
  abandoned?: boolean;
}

export function lloydIterations(
  X: Float64Array,
  n: number,
  d: number,
  init: Float64Array,
  k: number,
  maxIter: number,
  tolAbs: number,
  bar?: RestartBar,
): IterationResult {
  const judge = bar ? new RestartJudge(bar) : null;
  let centers: Float64Array = Float64Array.from(init);
  let next: Float64Array = new Float64Array(k * d);
  let labels: Int32Array = new Int32Array(n).fill(-1);
  let sums: ClusterSums | null = null;
  let strict = false;
  let it = 0;
  while (it < maxIter) {
    it++;
    const assigned = assignNearest(X, n, d, centers, k).labels;
    let changed = 0;
    for (let i = 0; i < n; i++) {
      if (assigned[i] === labels[i]) continue;
      changed++;
      sums?.move(i, labels[i], assigned[i]);
    }
    labels = assigned;
    sums ??= new ClusterSums(X, n, d, k, labels);
    sums.means(labels, centers, next);
    const shift = totalShift(centers, next);
    [centers, next] = [next, centers];
    if (changed === 0) {
      strict = true;
      break;
    }
    if (shift <= tolAbs) break;
    if (judge?.abandons(sums)) return { centers, labels, inertia: judge.objective, iterations: it, converged: false, abandoned: true };
  }
  if (!strict) labels = assignNearest(X, n, d, centers, k).labels;
  return { centers, labels, inertia: inertiaOf(X, n, d, centers, labels), iterations: it, converged: strict };
}

/** Sum over centers of the squared distance each moved. */
export function totalShift(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let t = 0; t < a.length; t++) {
    const v = a[t] - b[t];
    s += v * v;
  }
  return s;
}
