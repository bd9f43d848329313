/**
 * The isolation forest as ONNX: one ai.onnx.ml v5 `TreeEnsemble` whose leaf weights are the
 * leaves' path lengths (depth + c(size)), aggregated by SUM, then the score arithmetic
 * exp(-k · sum) = 2^(-mean path / c(ψ)) in double, so the graph matches ./score to ~1e-15.
 *
 * Node mapping: BRANCH_LEQ on the float32 threshold (exact in double; the input is float32 cast
 * to double, so `x <= t` decides as the engine does); the true branch is our left child;
 * nodes_missing_value_tracks_true = nanLeft. v5 roots must be nodes, so a tree that is a single
 * leaf (a sub-sample with no varying feature) becomes one LEQ node with both branches on it.
 */
import type { GraphBuilder } from "../onnx/graph";
import { ML_DOMAIN } from "../onnx/graph";
import { type Attribute, doubleTensor, uint8Tensor } from "../onnx/onnx-proto";
import type { IsolationForest } from "./forest";
import { scoreScale } from "./score";

const BRANCH_LEQ = 0;

function isolationForestAttributes(forest: IsolationForest): Attribute[] {
  const featureIds: number[] = [];
  const splits: number[] = [];
  const trueIds: number[] = [];
  const trueLeafs: number[] = [];
  const falseIds: number[] = [];
  const falseLeafs: number[] = [];
  const missingTrue: number[] = [];
  const roots: number[] = [];
  const leafWeights: number[] = [];
  // engine node index -> v5 node index (internal nodes) or leaf index (leaves)
  const { feature, threshold, left, nanLeft, pathLength } = forest;
  const position = new Int32Array(feature.length);
  for (let nd = 0; nd < feature.length; nd++) {
    if (feature[nd] >= 0) position[nd] = featureIds.push(feature[nd]) - 1;
    else position[nd] = leafWeights.push(pathLength[nd]) - 1;
  }
  const isLeaf = (nd: number) => (feature[nd] < 0 ? 1 : 0);
  for (let nd = 0; nd < feature.length; nd++) {
    if (feature[nd] < 0) continue;
    splits.push(threshold[nd]);
    missingTrue.push(nanLeft[nd]);
    const l = left[nd];
    trueIds.push(position[l]);
    trueLeafs.push(isLeaf(l));
    falseIds.push(position[l + 1]);
    falseLeafs.push(isLeaf(l + 1));
  }
  for (const root of forest.roots) {
    if (feature[root] >= 0) {
      roots.push(position[root]);
      continue;
    }
    roots.push(featureIds.push(0) - 1);
    splits.push(0);
    missingTrue.push(0);
    trueIds.push(position[root]);
    trueLeafs.push(1);
    falseIds.push(position[root]);
    falseLeafs.push(1);
  }
  return [
    { name: "n_targets", int: 1 },
    { name: "aggregate_function", int: 1 }, // SUM
    { name: "post_transform", int: 0 }, // NONE
    { name: "tree_roots", ints: roots },
    { name: "nodes_featureids", ints: featureIds },
    { name: "nodes_modes", tensor: uint8Tensor(new Array(featureIds.length).fill(BRANCH_LEQ)) },
    { name: "nodes_splits", tensor: doubleTensor(splits) },
    { name: "nodes_truenodeids", ints: trueIds },
    { name: "nodes_trueleafs", ints: trueLeafs },
    { name: "nodes_falsenodeids", ints: falseIds },
    { name: "nodes_falseleafs", ints: falseLeafs },
    { name: "nodes_missing_value_tracks_true", ints: missingTrue },
    { name: "leaf_targetids", ints: new Array(leafWeights.length).fill(0) },
    { name: "leaf_weights", tensor: doubleTensor(leafWeights) },
  ];
}

/**
 * Adds the forest's score to the graph: `x` is the double [N, F] featurized matrix; returns the
 * double [N] anomaly score (== scoreIsolationForest). The graph must be finished with usesMl.
 */
export function addIsolationForestStage(g: GraphBuilder, forest: IsolationForest, x: string): string {
  const sums = g.op("TreeEnsemble", [x], isolationForestAttributes(forest), { domain: ML_DOMAIN, prefix: "path_sum" });
  const flat = g.op("Reshape", [sums, g.int64([-1])], [], { prefix: "path_sum_flat" });
  const scaled = g.op("Mul", [flat, g.double([-scoreScale(forest)], [])]);
  return g.op("Exp", [scaled], [], { prefix: "forest_score" });
}
