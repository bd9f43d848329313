/**
 * Flattens GbdtModel trees into the attributes of the ai.onnx.ml v5 `TreeEnsemble` operator.
 *
 * Why v5 rather than TreeEnsembleRegressor/Classifier v3:
 * - v5 computes in the input's type, so with the float32 input cast to double the splits, leaf
 *   weights and the sum over trees are all double; v3 always outputs float32, which costs ~1e-3
 *   absolute error on targets around 10,000 (diamonds prices).
 * - v5 has BRANCH_MEMBER, so a categorical split stays one node (`code in leftCategories`)
 *   instead of a chain of BRANCH_EQ nodes.
 *
 * Mapping (the "true" branch of a v5 node is our left child):
 * - numeric: BRANCH_LEQ on the threshold (float32 value, exact in double, and the input is a
 *   float32 cast to double, so `x <= t` decides exactly as the engine does);
 * - categorical: BRANCH_MEMBER on leftCategories; codes not in the set (unseen) go false = right;
 * - NaN: nodes_missing_value_tracks_true = defaultLeft.
 * The input of a model with categorical splits is shifted: code + 1 on the features of those
 * splits (x + 0 on the others, exact), and the member sets hold code + 1. onnxruntime-web can
 * test a NaN that does not track true for membership as the code 0 (seen with sets reaching past
 * code 63, and in trained models), so a set holding code 0 sent a missing value left against
 * defaultLeft = 0: a category's further features (`column.rare1`) are NaN on most rows, so their
 * models disagreed with the engine on most rows. Shifted, no set holds 0.
 * A tree without splits becomes one LEQ node whose both branches reach its single leaf, because
 * v5 roots must be nodes.
 */
import type { GbdtModel } from "../gbdt/model";
import { type Attribute, doubleTensor, uint8Tensor } from "./onnx-proto";

const BRANCH_LEQ = 0;
const BRANCH_MEMBER = 6;

/**
 * The TreeEnsemble node's attributes, and the shift its input needs (x + inputShift per feature,
 * null: none): the graph adds it to the double features before the node.
 */
export function treeEnsemble(model: GbdtModel): { attributes: Attribute[]; inputShift: number[] | null } {
  const inputShift = new Array<number>(model.numFeatures).fill(0);
  let shifted = false;
  for (const tree of model.trees) {
    tree.isCategorical.forEach((c, i) => {
      if (c && (tree.leftCategories[i]?.length ?? 0) > 0) {
        inputShift[tree.splitFeature[i]] = 1;
        shifted = true;
      }
    });
  }
  return { attributes: treeEnsembleAttributes(model, inputShift), inputShift: shifted ? inputShift : null };
}

function treeEnsembleAttributes(model: GbdtModel, shift: number[]): Attribute[] {
  const featureIds: number[] = [];
  const modes: number[] = [];
  const splits: number[] = [];
  const trueIds: number[] = [];
  const trueLeafs: number[] = [];
  const falseIds: number[] = [];
  const falseLeafs: number[] = [];
  const missingTrue: number[] = [];
  const members: number[] = [];
  const roots: number[] = [];
  const leafTargets: number[] = [];
  const leafWeights: number[] = [];

  model.trees.forEach((tree, t) => {
    const nodeBase = featureIds.length;
    const leafBase = leafTargets.length;
    const output = t % model.numOutputs;
    roots.push(nodeBase);
    // Child reference -> (position, isLeaf) in the global v5 arrays.
    const child = (c: number): [number, number] => (c < 0 ? [leafBase + ~c, 1] : [nodeBase + c, 0]);

    const numNodes = tree.splitFeature.length;
    if (numNodes === 0) {
      featureIds.push(0);
      modes.push(BRANCH_LEQ);
      splits.push(0);
      missingTrue.push(0);
      trueIds.push(leafBase);
      trueLeafs.push(1);
      falseIds.push(leafBase);
      falseLeafs.push(1);
    }
    for (let i = 0; i < numNodes; i++) {
      featureIds.push(tree.splitFeature[i]);
      missingTrue.push(tree.defaultLeft[i] ? 1 : 0);
      const cats = tree.leftCategories[i] ?? [];
      if (tree.isCategorical[i] && cats.length > 0) {
        modes.push(BRANCH_MEMBER);
        splits.push(0); // unused for BRANCH_MEMBER
        const s = shift[tree.splitFeature[i]];
        for (const c of cats) members.push(c + s);
        members.push(NaN); // each set is terminated by NaN
      } else if (tree.isCategorical[i]) {
        // Empty left set: no code goes left, only NaN when defaultLeft. -Infinity does that.
        modes.push(BRANCH_LEQ);
        splits.push(-Infinity);
      } else {
        modes.push(BRANCH_LEQ);
        splits.push(tree.threshold[i]);
      }
      const [l, lLeaf] = child(tree.left[i]);
      const [r, rLeaf] = child(tree.right[i]);
      trueIds.push(l);
      trueLeafs.push(lLeaf);
      falseIds.push(r);
      falseLeafs.push(rLeaf);
    }
    for (const v of tree.leafValue) {
      leafTargets.push(output);
      leafWeights.push(v);
    }
  });

  const attrs: Attribute[] = [
    { name: "n_targets", int: model.numOutputs },
    { name: "aggregate_function", int: 1 }, // SUM
    { name: "post_transform", int: 0 }, // NONE: sigmoid/softmax are separate double-precision nodes
    { name: "tree_roots", ints: roots },
    { name: "nodes_featureids", ints: featureIds },
    { name: "nodes_modes", tensor: uint8Tensor(modes) },
    { name: "nodes_splits", tensor: doubleTensor(splits) },
    { name: "nodes_truenodeids", ints: trueIds },
    { name: "nodes_trueleafs", ints: trueLeafs },
    { name: "nodes_falsenodeids", ints: falseIds },
    { name: "nodes_falseleafs", ints: falseLeafs },
    { name: "nodes_missing_value_tracks_true", ints: missingTrue },
    { name: "leaf_targetids", ints: leafTargets },
    { name: "leaf_weights", tensor: doubleTensor(leafWeights) },
  ];
  if (members.length > 0) attrs.push({ name: "membership_values", tensor: doubleTensor(members) });
  return attrs;
}
