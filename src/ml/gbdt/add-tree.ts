/**
 * Adding a just-grown tree's output to the rows' raw scores, without walking it from its root
 * value by value: by the grower's leaf row groups (the rows it was grown on) or by its per-node
 * bin tables (any binned rows).
 */
import type { TreeGrower } from "./grower";
import type { Tree } from "./model";

export function addTreeByLeaf(tree: Tree, g: TreeGrower, scores: Float64Array, K: number, k: number): void {
  const rows = g.rowIdx;
  for (let l = 0; l < tree.leafValue.length; l++) {
    const v = tree.leafValue[l];
    const s = g.leafStart[l];
    const e = s + g.leafCount[l];
    for (let i = s; i < e; i++) scores[rows[i] * K + k] += v;
  }
}

/** Add a just-grown tree's output using the grower's per-node bin tables. */
export function addTreeBinned(tree: Tree, g: TreeGrower, bins: Uint8Array, F: number, n: number, scores: Float64Array, K: number, k: number): void {
  const leafValue = Float64Array.from(tree.leafValue);
  if (tree.left.length === 0) {
    for (let i = 0; i < n; i++) scores[i * K + k] += leafValue[0];
    return;
  }
  const left = Int32Array.from(tree.left);
  const right = Int32Array.from(tree.right);
  const table = g.nodeTable;
  const feat = g.nodeFeature;
  for (let i = 0; i < n; i++) {
    const base = i * F;
    let node = 0;
    while (node >= 0) node = table[node * 256 + bins[base + feat[node]]] ? left[node] : right[node];
    scores[i * K + k] += leafValue[~node];
  }
}
