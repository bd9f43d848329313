/**
 * An isolation forest in the GbdtModel form, so that the exact TreeSHAP of ../explain/treeshap
 * explains it unchanged: leaf value = the leaf's path length (depth + c(size)), cover = the
 * sub-sample rows that reached the node. The raw output is then the forest's path-length sum
 * (what ./score turns into the anomaly score), and TreeSHAP's base value its average over the
 * trees' sub-samples (path-dependent TreeSHAP takes the covers as the data distribution).
 *
 * The split rules read the same: ../explain/evaluate's goesLeft compares Math.fround(x) <= t on
 * the float32 threshold and sends NaN by defaultLeft, as the forest does with nanLeft.
 */
import { emptyTree, type GbdtModel, type Tree } from "../gbdt/model";
import type { IsolationForest } from "./forest";

export function forestAsGbdt(forest: IsolationForest): GbdtModel {
  const trees = Array.from(forest.roots, (root) => treeOf(forest, root));
  return {
    format: "gbdt-v1",
    objective: "regression",
    numOutputs: 1,
    baseScore: [0],
    trees,
    numFeatures: forest.numFeatures,
    featureNames: Array.from({ length: forest.numFeatures }, (_, f) => `f${f}`),
    bestIteration: trees.length - 1,
  };
}

/** One isolation tree: internal nodes numbered depth-first from its root (0), leaves by ~index. */
function treeOf(f: IsolationForest, root: number): Tree {
  const t = emptyTree();
  const visit = (nd: number): number => {
    if (f.feature[nd] < 0) {
      t.leafValue.push(f.pathLength[nd]);
      t.leafCover.push(f.size[nd]);
      return ~(t.leafValue.length - 1);
    }
    const at = t.splitFeature.length;
    t.splitFeature.push(f.feature[nd]);
    t.threshold.push(f.threshold[nd]);
    t.isCategorical.push(0);
    t.leftCategories.push([]);
    t.defaultLeft.push(f.nanLeft[nd]);
    t.internalCover.push(f.size[nd]);
    t.gain.push(0);
    t.left.push(0);
    t.right.push(0);
    t.left[at] = visit(f.left[nd]);
    t.right[at] = visit(f.left[nd] + 1);
    return at;
  };
  visit(root);
  return t;
}
