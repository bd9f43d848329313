/**
 * A weighted sum of GBDT models as one model: its raw score is Σ wᵢ · rawᵢ, so the base scores
 * and every tree's leaf values are scaled by the member's weight and the trees concatenated.
 * A model search serves its ensemble this way (fold models averaged, members blended), one graph
 * that the ONNX export, TreeSHAP and inference read like any other model.
 *
 * Why raw scores: for regression they are the prediction; for classification, blending logits
 * keeps the model a tree ensemble (blending probabilities would not be one).
 */
import type { GbdtModel, Tree } from "./model";

export interface BlendMember {
  model: GbdtModel;
  weight: number;
}

export function blendGbdtModels(members: BlendMember[]): GbdtModel {
  if (members.length === 0) throw new Error("blendGbdtModels needs at least one member");
  const first = members[0].model;
  for (const { model } of members) {
    if (model.objective !== first.objective || model.numOutputs !== first.numOutputs || model.numFeatures !== first.numFeatures) {
      throw new Error("blended models must share objective, outputs and features");
    }
  }
  if (members.length === 1 && members[0].weight === 1) return first;
  const K = first.numOutputs;
  const baseScore = new Array<number>(K).fill(0);
  const trees: Tree[] = [];
  for (const { model, weight } of members) {
    for (let k = 0; k < K; k++) baseScore[k] += weight * model.baseScore[k];
    // trees[round * K + k] layout: each member adds whole rounds, so the layout holds
    for (const t of model.trees) trees.push(scaleTree(t, weight));
  }
  const model: GbdtModel = {
    ...first,
    baseScore: baseScore.map((b) => Math.fround(b)),
    trees,
    bestIteration: Math.max(0, trees.length / K - 1),
  };
  return model;
}

function scaleTree(t: Tree, weight: number): Tree {
  // float32 leaves: the ONNX graph stores them as float32
  return { ...t, leafValue: t.leafValue.map((v) => Math.fround(v * weight)) };
}
