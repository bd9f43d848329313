/**
 * Plain evaluation of a GbdtModel on one row, written directly from the model doc. Explanations
 * use it (TreeSHAP's "hot" path, the flip search) so that both share one reading of the split
 * rules; tests use it as the reference for the ONNX export.
 */
import type { GbdtModel, Tree } from "../gbdt/model";

/** Decision at internal node `node` for the feature value `value` (compared as float32). */
export function goesLeft(tree: Tree, node: number, value: number): boolean {
  if (Number.isNaN(value)) return tree.defaultLeft[node] === 1;
  if (tree.isCategorical[node] === 1) return tree.leftCategories[node].includes(value); // unseen -> right
  return Math.fround(value) <= tree.threshold[node];
}

/** Leaf number reached by `row` (root is leaf 0 when the tree has no split). */
function leafIndex(tree: Tree, row: ArrayLike<number>): number {
  if (tree.splitFeature.length === 0) return 0;
  let node = 0;
  while (node >= 0) node = goesLeft(tree, node, row[tree.splitFeature[node]]) ? tree.left[node] : tree.right[node];
  return ~node;
}

/**
 * Raw scores (before sigmoid/softmax), one per output, summed in double.
 * @internal exported for its unit tests (test/ml/treeshap.test.ts and others)
 */
export function rawScores(model: GbdtModel, row: ArrayLike<number>, out = new Float64Array(model.numOutputs)): Float64Array {
  const K = model.numOutputs;
  for (let k = 0; k < K; k++) out[k] = model.baseScore[k];
  for (let t = 0; t < model.trees.length; t++) {
    const tree = model.trees[t];
    out[t % K] += tree.leafValue[leafIndex(tree, row)];
  }
  return out;
}

export interface RowPrediction {
  raw: Float64Array;
  /** Regression: the value. Classification: the predicted class index. */
  value: number;
  /** Classification only: per-class probabilities (binary: [1 - p, p]). */
  probabilities?: number[];
}

export function predictRow(model: GbdtModel, row: ArrayLike<number>): RowPrediction {
  const raw = rawScores(model, row);
  if (model.objective === "regression") return { raw, value: raw[0] };
  let probabilities: number[];
  if (model.objective === "binary") {
    const p = 1 / (1 + Math.exp(-raw[0]));
    probabilities = [1 - p, p];
  } else {
    const max = Math.max(...raw);
    const e = Array.from(raw, (r) => Math.exp(r - max));
    const sum = e.reduce((a, b) => a + b, 0);
    probabilities = e.map((v) => v / sum);
  }
  // First maximum wins, as ONNX ArgMax does.
  let best = 0;
  for (let k = 1; k < probabilities.length; k++) if (probabilities[k] > probabilities[best]) best = k;
  return { raw, value: best, probabilities };
}
