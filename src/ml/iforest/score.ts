/**
 * Scoring with a trained isolation forest: the summed path length of each row over the trees,
 * and the anomaly score s = 2^(-E[h] / c(ψ)) in (0, 1], higher = more anomalous (about 0.5 and
 * below for ordinary rows, near 1 for rows every tree isolates at once).
 *
 * Speed (the hot loop of the model; about 8× faster than a per-row recursive walk):
 * - rows are scored in blocks, trees in the outer loop, so one tree's nodes and the block's rows
 *   stay in cache while the whole block walks that tree, one level at a time;
 * - the walk is branch-free: a leaf loops onto itself (threshold +∞, NaN sent "left" to itself),
 *   so every row takes exactly the tree's depth in steps, and the child is computed as
 *   left + 1 - (x <= t) instead of chosen by a branch the CPU would mispredict half the time;
 * - blocks without any NaN skip the missing-value term.
 */
import type { IsolationForest } from "./forest";
import { averagePathLength } from "./path-length";

/** Rows per block: 512 rows of up to ~64 float32 features is 128 KB, inside L2 with the tree. */
const BLOCK = 512;

/** The forest in the branch-free walking form (derived once per forest). */
interface Walk {
  feature: Int32Array;
  threshold: Float32Array;
  left: Int32Array;
  nanLeft: Uint8Array;
  /** Levels to walk per tree (its deepest leaf's depth). */
  depth: Int32Array;
}

const walks = new WeakMap<IsolationForest, Walk>();

function walkOf(forest: IsolationForest): Walk {
  let w = walks.get(forest);
  if (w) return w;
  const n = forest.feature.length;
  w = {
    feature: new Int32Array(n),
    threshold: Float32Array.from(forest.threshold),
    left: Int32Array.from(forest.left),
    nanLeft: Uint8Array.from(forest.nanLeft),
    depth: new Int32Array(forest.roots.length),
  };
  for (let nd = 0; nd < n; nd++) {
    if (forest.feature[nd] >= 0) w.feature[nd] = forest.feature[nd];
    else {
      // feature 0 (any would do), x <= +∞ for every number, NaN "left": child = left + 0 = itself
      w.threshold[nd] = Infinity;
      w.left[nd] = nd;
      w.nanLeft[nd] = 1;
    }
  }
  const depthOf = (nd: number): number => (forest.feature[nd] < 0 ? 0 : 1 + Math.max(depthOf(forest.left[nd]), depthOf(forest.left[nd] + 1)));
  forest.roots.forEach((root, t) => (w!.depth[t] = depthOf(root)));
  walks.set(forest, w);
  return w;
}

/**
 * Sum over the trees of each row's path length (depth of its leaf + c(leaf size)), rows
 * [start, end) of a row-major [numRows x numFeatures] matrix, into out[0 .. end - start).
 */
export function pathLengthSums(forest: IsolationForest, data: Float32Array, start: number, end: number, out: Float64Array): void {
  const F = forest.numFeatures;
  const { roots, pathLength } = forest;
  const { feature, threshold, left, nanLeft, depth } = walkOf(forest);
  const at = new Int32Array(BLOCK);
  for (let b = start; b < end; b += BLOCK) {
    const R = Math.min(end, b + BLOCK) - b;
    const o = b - start;
    out.fill(0, o, o + R);
    let hasNaN = false;
    for (let c = b * F; c < (b + R) * F && !hasNaN; c++) hasNaN = data[c] !== data[c];
    for (let t = 0; t < roots.length; t++) {
      at.fill(roots[t], 0, R);
      for (let d = depth[t]; d > 0; d--) {
        if (hasNaN) {
          for (let r = 0, base = b * F; r < R; r++, base += F) {
            const nd = at[r];
            const x = data[base + feature[nd]];
            at[r] = left[nd] + 1 - +(x <= threshold[nd]) - (nanLeft[nd] & +(x !== x));
          }
        } else {
          for (let r = 0, base = b * F; r < R; r++, base += F) {
            const nd = at[r];
            at[r] = left[nd] + 1 - +(data[base + feature[nd]] <= threshold[nd]);
          }
        }
      }
      for (let r = 0; r < R; r++) out[o + r] += pathLength[at[r]];
    }
  }
}

/** exp(-k · sum) = 2^(-mean path length / c(ψ)); the ONNX graph applies the same constant. */
export function scoreScale(forest: IsolationForest): number {
  return Math.LN2 / (forest.numTrees * averagePathLength(forest.sampleSize));
}

/** Anomaly scores in (0, 1] of the rows of a [numRows x numFeatures] float32 matrix. */
export function scoreIsolationForest(forest: IsolationForest, data: Float32Array, numRows: number): Float64Array {
  if (data.length !== numRows * forest.numFeatures) {
    throw new Error(`matrix of ${data.length} values is not ${numRows} rows x ${forest.numFeatures} features`);
  }
  const out = new Float64Array(numRows);
  pathLengthSums(forest, data, 0, numRows, out);
  return toScores(forest, out);
}

/** Path-length sums -> scores, in place. */
export function toScores(forest: IsolationForest, sums: Float64Array): Float64Array {
  const k = scoreScale(forest);
  for (let i = 0; i < sums.length; i++) sums[i] = Math.exp(-k * sums[i]);
  return sums;
}
