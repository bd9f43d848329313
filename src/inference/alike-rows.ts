/**
 * Running the graph once per group of rows it answers alike (a tree ensemble's rows that every
 * split sends the same way, ../ml/gbdt/alike-rows): the groups' first rows go through the graph,
 * and each row then takes its group's outputs. The graph computes each row on its own (checked:
 * test/ml/alike-rows.test.ts), so the outputs are the very values a run over every row gives.
 */
import type { AlikeRows } from "../ml/gbdt/alike-rows";
import type { GraphOutput } from "../model-types/contract";

/** The groups' first rows of row-major `matrix` (numFeatures values per row), in group order. */
export function groupRows(matrix: Float32Array, numFeatures: number, groups: AlikeRows): Float32Array {
  const out = new Float32Array(groups.count * numFeatures);
  for (let u = 0; u < groups.count; u++) {
    const row = groups.first[u] * numFeatures;
    out.set(matrix.subarray(row, row + numFeatures), u * numFeatures);
  }
  return out;
}

/** Each row's outputs: its group's, from the outputs of the groups' rows. */
export function spreadOutputs(outputs: Record<string, GraphOutput>, groups: AlikeRows): Record<string, GraphOutput> {
  const n = groups.of.length;
  const spread: Record<string, GraphOutput> = {};
  for (const [name, o] of Object.entries(outputs)) {
    const width = groups.count === 0 ? 0 : o.data.length / groups.count;
    const data = new Float64Array(n * width);
    for (let i = 0; i < n; i++) {
      const from = groups.of[i] * width;
      for (let j = 0; j < width; j++) data[i * width + j] = o.data[from + j];
    }
    spread[name] = { data, dims: [n, ...o.dims.slice(1)] };
  }
  return spread;
}
