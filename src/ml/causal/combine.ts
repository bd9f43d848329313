/**
 * A weighted sum of regression GBDTs as one regression GBDT: a GBDT's raw score is its base score
 * plus the leaf values its trees reach, so Σ c_i·f_i(x) is the model whose trees are every
 * model's trees with leaf values scaled by c_i, and whose base score is Σ c_i·base_i. Why: every
 * meta-learner's CATE (T: μ_a − μ_c, S: μ(x, a) − μ(x, c), X: g·τ_c + (1 − g)·τ_a, DR: one
 * model) and any blend of them is such a sum, so the served effect stays one tree ensemble: the
 * ONNX export (./onnx), TreeSHAP explanations (./explain) and the gain ranking read it unchanged.
 * Raw scores only: sums of probabilities (sigmoids) are not tree ensembles, so the terms must be
 * regression models.
 */
import type { GbdtModel, Tree } from "../gbdt/model";

export interface Term {
  model: GbdtModel;
  coef: number;
}

function scaled(tree: Tree, c: number): Tree {
  return { ...tree, leafValue: tree.leafValue.map((v) => v * c) };
}

export function combineGbdts(terms: Term[]): GbdtModel {
  const used = terms.filter((t) => t.coef !== 0);
  const first = (used[0] ?? terms[0]).model;
  for (const t of terms) {
    if (t.model.objective !== "regression") throw new Error(`combineGbdts: a ${t.model.objective} model is not additive in its trees`);
    if (t.model.numFeatures !== first.numFeatures) throw new Error("combineGbdts: models over different features");
  }
  return {
    format: "gbdt-v1",
    objective: "regression",
    numOutputs: 1,
    baseScore: [used.reduce((s, t) => s + t.coef * t.model.baseScore[0], 0)],
    trees: used.flatMap((t) => t.model.trees.map((tree) => scaled(tree, t.coef))),
    numFeatures: first.numFeatures,
    featureNames: first.featureNames,
    bestIteration: used.reduce((s, t) => s + t.model.trees.length, 0) - 1,
  };
}
