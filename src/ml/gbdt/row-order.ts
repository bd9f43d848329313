/**
 * Rows in an order that suits the lockstep walk (./predict): eight rows walk a tree until the
 * last of them reaches its leaf, so a group of rows that take paths of different lengths wastes
 * the steps of the shorter ones (diamonds' searched model, 128-leaf trees: 13.6 steps per row
 * and tree in lockstep for 10.7 on average). Rows that are close in the features the trees test
 * first tend to take the same paths: sorting the distinct key vectors by the key columns that
 * the walked trees' upper splits read cuts those steps (to 11.9 there) and makes the walk's
 * branches more predictable. Exact: each vector's score is computed on its own, whatever the
 * order, and copied back to its rows.
 */

/** Key columns in the sort key: 5 bits each (key bytes are 0..31) in 30 bits. */
const SORT_COLUMNS = 6;

/** The parts of ./flat's compiled model that the column choice reads (see FlatModel there). */
interface WalkedRecords {
  nodes: Int32Array;
  roots: Int32Array;
  leafStart: Int32Array;
}

/**
 * Up to SORT_COLUMNS key columns, most important first: the key column of each split record of
 * the trees with `walked(t)`, weighted 2^-depth (the share of rows that reach it on a balanced
 * tree). Empty when no tree is walked.
 */
export function sortColumns(m: WalkedRecords, walked: (t: number) => boolean): Int32Array {
  const weight = new Map<number, number>();
  for (let t = 0; t < m.roots.length; t++) {
    if (!walked(t)) continue;
    let level = [m.roots[t]];
    for (let w = 1; level.length; w /= 2) {
      const next: number[] = [];
      for (const r of level) {
        if (r >= m.leafStart[t]) continue;
        weight.set(m.nodes[r], (weight.get(m.nodes[r]) ?? 0) + w);
        next.push(m.nodes[r + 1], m.nodes[r + 2]);
      }
      level = next;
    }
  }
  const ranked = [...weight].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  return Int32Array.from(ranked.slice(0, SORT_COLUMNS), ([col]) => col);
}

/**
 * Sorts the first `count` key vectors of `keys` (stride bytes each) by their bytes in `cols`,
 * using `scratch` (at least count * stride bytes), and renumbers of[0 .. n) to the new positions.
 */
export function sortRows(keys: Uint8Array, count: number, stride: number, cols: Int32Array, of: Int32Array, n: number, scratch: Uint8Array) {
  // sort key in the high bits, position in the low 16 (count <= 65,536): exact in a double
  const order = new Float64Array(count);
  for (let u = 0; u < count; u++) {
    let k = 0;
    for (let c = 0; c < cols.length; c++) k = (k << 5) | keys[u * stride + cols[c]];
    order[u] = k * 65536 + u;
  }
  order.sort();
  const position = new Int32Array(count);
  for (let p = 0; p < count; p++) {
    const u = order[p] % 65536;
    position[u] = p;
    // a byte loop, not set(subarray(...)): no view allocated per distinct row
    for (let b = 0, from = u * stride, to = p * stride; b < stride; b++) scratch[to + b] = keys[from + b];
  }
  keys.set(scratch.subarray(0, count * stride));
  for (let i = 0; i < n; i++) of[i] = position[of[i]];
}
