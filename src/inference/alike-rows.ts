/**
 * Answering once per group of rows the graph answers alike (a tree ensemble's rows that every
 * split sends the same way, ../ml/gbdt/alike-rows): the groups' first rows go through the graph
 * and the type's answer, and each row then takes its group's cells. The graph computes each row
 * on its own and a type that groups answers row by row (checked: test/ml/alike-rows.test.ts,
 * test/model-types/prediction-alike-rows.test.ts), so the table is the very one an answer over
 * every row gives.
 */
import type { AlikeRows } from "../ml/gbdt/alike-rows";
import type { Cell, ResultTable } from "../model-types/contract";

/** The groups' first rows of row-major `matrix` (numFeatures values per row), in group order. */
export function groupRows(matrix: Float32Array, numFeatures: number, groups: AlikeRows): Float32Array {
  const out = new Float32Array(groups.count * numFeatures);
  for (let u = 0; u < groups.count; u++) {
    const row = groups.first[u] * numFeatures;
    out.set(matrix.subarray(row, row + numFeatures), u * numFeatures);
  }
  return out;
}

/**
 * The answer of every row from the answer of the groups' first rows: each row's `id` and its
 * group's other cells (shared, not copied: cells are not changed once answered).
 */
export function spreadTable(answered: ResultTable, ids: Cell[], groups: AlikeRows): ResultTable {
  const table: ResultTable = {};
  for (const [name, cells] of Object.entries(answered)) {
    if (name === "id") {
      table.id = ids;
      continue;
    }
    const column = new Array<Cell>(groups.of.length);
    for (let i = 0; i < column.length; i++) column[i] = cells[groups.of[i]];
    table[name] = column;
  }
  return table;
}
