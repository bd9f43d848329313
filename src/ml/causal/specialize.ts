/**
 * The S-learner's model μ(x, t) with the treatment t fixed: a GBDT fit on the features plus one
 * last column t (0 = control, 1 = the treated arm) becomes a GBDT on the features alone, each
 * split on t replaced by the branch t takes. Why: the served graph and the explanations take the
 * features only (no treatment input), and μ(x, 1) − μ(x, 0) of two such models is one tree
 * ensemble again (../gbdt/blend).
 */
import type { GbdtModel, Tree } from "../gbdt/model";
import { emptyTree } from "../gbdt/model";

/** `tree` with every split on feature `f` resolved for the value `value` (never missing). */
function specializeTree(tree: Tree, f: number, value: number): Tree {
  const out = emptyTree();
  // returns the new child reference (>= 0 internal node, < 0 leaf ~index) and its cover
  const visit = (child: number): { ref: number; cover: number } => {
    if (child < 0) {
      out.leafValue.push(tree.leafValue[~child]);
      out.leafCover.push(tree.leafCover[~child]);
      return { ref: ~(out.leafValue.length - 1), cover: tree.leafCover[~child] };
    }
    if (tree.splitFeature[child] === f) {
      const goLeft = tree.isCategorical[child] ? tree.leftCategories[child].includes(value) : value <= tree.threshold[child];
      return visit(goLeft ? tree.left[child] : tree.right[child]);
    }
    const node = out.splitFeature.length;
    out.splitFeature.push(tree.splitFeature[child]);
    out.threshold.push(tree.threshold[child]);
    out.isCategorical.push(tree.isCategorical[child]);
    out.leftCategories.push(tree.leftCategories[child]);
    out.defaultLeft.push(tree.defaultLeft[child]);
    out.gain.push(tree.gain[child]);
    out.left.push(0);
    out.right.push(0);
    out.internalCover.push(0);
    const l = visit(tree.left[child]);
    const r = visit(tree.right[child]);
    out.left[node] = l.ref;
    out.right[node] = r.ref;
    // the rows that reach the node now are those of its two kept subtrees (TreeSHAP reads covers as row shares)
    out.internalCover[node] = l.cover + r.cover;
    return { ref: node, cover: l.cover + r.cover };
  };
  // a tree with no split is its leaf 0
  visit(tree.splitFeature.length === 0 ? -1 : 0);
  return out;
}

/** μ(x, value): `model` (trained with the treatment as its last feature) on the other features. */
export function fixLastFeature(model: GbdtModel, value: number): GbdtModel {
  const f = model.numFeatures - 1;
  return {
    ...model,
    trees: model.trees.map((t) => specializeTree(t, f, value)),
    numFeatures: f,
    featureNames: model.featureNames.slice(0, f),
  };
}
