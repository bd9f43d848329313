/**
 * Exact path-dependent TreeSHAP (Lundberg, Erion & Lee 2018, "Consistent individualized feature
 * attribution for tree ensembles", algorithm 2) for GbdtModel, with internalCover / leafCover as
 * the node covers. Per output: bias (expected value) + sum(contributions) = raw score.
 *
 * The "hot" child of a split is the one the row takes under the model's own rules (`goesLeft`:
 * float32 threshold, categorical membership with unseen codes right, NaN by defaultLeft), so
 * categorical and missing values need no special case here.
 *
 * No allocation in the recursion: the path is four typed arrays shared by all depths; each
 * recursion level works on its own slice (level d starts at (d+1)(d+2)/2, as in the reference
 * C++ implementations), which is what lets a child's unwinding leave its parent's path intact.
 */
import type { GbdtModel, Tree } from "../gbdt/model";
import { goesLeft } from "./evaluate";

export interface ShapExplanation {
  /** Per output: baseScore + expected tree output under the cover distribution. */
  expectedValue: Float64Array;
  /** Per output, one contribution per feature (contributions[output][feature]). */
  contributions: Float64Array[];
}

function coverOf(tree: Tree, child: number): number {
  return child >= 0 ? tree.internalCover[child] : tree.leafCover[~child];
}

function depthOf(tree: Tree, node: number): number {
  if (node < 0) return 0;
  return 1 + Math.max(depthOf(tree, tree.left[node]), depthOf(tree, tree.right[node]));
}

/** Expected value of a subtree, weighting children by their cover share (matches the recursion). */
function expectedOf(tree: Tree, node: number): number {
  if (node < 0) return tree.leafValue[~node];
  const w = tree.internalCover[node];
  const l = tree.left[node];
  const r = tree.right[node];
  return (coverOf(tree, l) * expectedOf(tree, l) + coverOf(tree, r) * expectedOf(tree, r)) / w;
}

export class TreeShapExplainer {
  readonly expectedValue: Float64Array;
  // Path elements, structure-of-arrays.
  private readonly feat: Int32Array;
  private readonly zero: Float64Array;
  private readonly one: Float64Array;
  private readonly pw: Float64Array;
  // State of the current call (kept in fields so the recursion has few arguments).
  private tree!: Tree;
  private row!: ArrayLike<number>;
  private phi!: Float64Array;
  private phiBase = 0;

  constructor(private readonly model: GbdtModel) {
    let maxDepth = 0;
    this.expectedValue = Float64Array.from(model.baseScore);
    model.trees.forEach((tree, t) => {
      const root = tree.splitFeature.length === 0 ? -1 : 0; // no split: root is leaf 0
      maxDepth = Math.max(maxDepth, depthOf(tree, root));
      this.expectedValue[t % model.numOutputs] += expectedOf(tree, root);
    });
    const size = ((maxDepth + 2) * (maxDepth + 3)) / 2;
    this.feat = new Int32Array(size);
    this.zero = new Float64Array(size);
    this.one = new Float64Array(size);
    this.pw = new Float64Array(size);
  }

  /**
   * Adds the contributions of `row` into `out` (length numOutputs * numFeatures, output-major),
   * which the caller zeroes; lets batch callers reuse one buffer.
   */
  explainInto(row: ArrayLike<number>, out: Float64Array): void {
    const { model } = this;
    this.row = row;
    this.phi = out;
    for (let t = 0; t < model.trees.length; t++) {
      const tree = model.trees[t];
      if (tree.splitFeature.length === 0) continue; // a constant tree only moves the bias
      this.tree = tree;
      this.phiBase = (t % model.numOutputs) * model.numFeatures;
      this.recurse(0, 0, 0, 1, 1, -1);
    }
  }

  explain(row: ArrayLike<number>): ShapExplanation {
    const { numOutputs, numFeatures } = this.model;
    const out = new Float64Array(numOutputs * numFeatures);
    this.explainInto(row, out);
    const contributions = Array.from({ length: numOutputs }, (_, k) => out.slice(k * numFeatures, (k + 1) * numFeatures));
    return { expectedValue: Float64Array.from(this.expectedValue), contributions };
  }

  /**
   * `node` is a child reference (>= 0 internal, < 0 leaf ~node); `parentStart` is the parent's
   * path slice, `depth` the number of path elements after extension minus one.
   */
  private recurse(node: number, parentStart: number, depth: number, pZero: number, pOne: number, pFeature: number): void {
    const { feat, zero, one, pw, tree } = this;
    const start = parentStart + depth + 1;
    for (let i = 0; i < depth + 1; i++) {
      feat[start + i] = feat[parentStart + i];
      zero[start + i] = zero[parentStart + i];
      one[start + i] = one[parentStart + i];
      pw[start + i] = pw[parentStart + i];
    }
    this.extend(start, depth, pZero, pOne, pFeature);

    if (node < 0) {
      const value = tree.leafValue[~node];
      for (let i = 1; i <= depth; i++) {
        const w = this.unwoundSum(start, depth, i);
        this.phi[this.phiBase + feat[start + i]] += w * (one[start + i] - zero[start + i]) * value;
      }
      return;
    }

    const split = tree.splitFeature[node];
    const left = tree.left[node];
    const right = tree.right[node];
    const isLeft = goesLeft(tree, node, this.row[split]);
    const hot = isLeft ? left : right;
    const cold = isLeft ? right : left;
    const w = tree.internalCover[node];
    const hotZero = coverOf(tree, hot) / w;
    const coldZero = coverOf(tree, cold) / w;

    // A feature already on the path: undo its earlier split and redo it with the combined fractions.
    let inZero = 1;
    let inOne = 1;
    let k = 0;
    while (k <= depth && feat[start + k] !== split) k++;
    if (k <= depth) {
      inZero = zero[start + k];
      inOne = one[start + k];
      this.unwind(start, depth, k);
      depth -= 1;
    }
    this.recurse(hot, start, depth + 1, hotZero * inZero, inOne, split);
    this.recurse(cold, start, depth + 1, coldZero * inZero, 0, split);
  }

  private extend(s: number, depth: number, zeroFraction: number, oneFraction: number, feature: number): void {
    const { pw } = this;
    this.feat[s + depth] = feature;
    this.zero[s + depth] = zeroFraction;
    this.one[s + depth] = oneFraction;
    pw[s + depth] = depth === 0 ? 1 : 0;
    for (let i = depth - 1; i >= 0; i--) {
      pw[s + i + 1] += (oneFraction * pw[s + i] * (i + 1)) / (depth + 1);
      pw[s + i] = (zeroFraction * pw[s + i] * (depth - i)) / (depth + 1);
    }
  }

  private unwind(s: number, depth: number, index: number): void {
    const { pw, feat, zero, one } = this;
    const oneFraction = one[s + index];
    const zeroFraction = zero[s + index];
    let next = pw[s + depth];
    for (let i = depth - 1; i >= 0; i--) {
      if (oneFraction !== 0) {
        const tmp = pw[s + i];
        pw[s + i] = (next * (depth + 1)) / ((i + 1) * oneFraction);
        next = tmp - (pw[s + i] * zeroFraction * (depth - i)) / (depth + 1);
      } else {
        pw[s + i] = (pw[s + i] * (depth + 1)) / (zeroFraction * (depth - i));
      }
    }
    for (let i = index; i < depth; i++) {
      feat[s + i] = feat[s + i + 1];
      zero[s + i] = zero[s + i + 1];
      one[s + i] = one[s + i + 1];
    }
  }

  /** Total permutation weight of the path with element `index` removed (unwind without writing). */
  private unwoundSum(s: number, depth: number, index: number): number {
    const { pw } = this;
    const oneFraction = this.one[s + index];
    const zeroFraction = this.zero[s + index];
    let next = pw[s + depth];
    let total = 0;
    for (let i = depth - 1; i >= 0; i--) {
      if (oneFraction !== 0) {
        const tmp = (next * (depth + 1)) / ((i + 1) * oneFraction);
        total += tmp;
        next = pw[s + i] - (tmp * zeroFraction * (depth - i)) / (depth + 1);
      } else {
        total += (pw[s + i] / zeroFraction) * ((depth + 1) / (depth - i));
      }
    }
    return total;
  }
}

/** One-off convenience; build a TreeShapExplainer once when explaining many rows. */
export function treeShap(model: GbdtModel, row: ArrayLike<number>): ShapExplanation {
  return new TreeShapExplainer(model).explain(row);
}
