/**
 * src/ml/gbdt/row-order.ts: the distinct key vectors sorted by the chosen key columns, and each
 * row's index renumbered to its vector's new position (the predictor's exactness relies on it;
 * end to end in test/ml/gbdt-predict-flat.test.ts).
 */
import { describe, expect, it } from "vitest";
import { sortColumns, sortRows } from "../../src/ml/gbdt/row-order";
import { Rng } from "../../src/ml/random";

describe("row order for the lockstep walk", () => {
  it("sorts the vectors by the columns, in order, and renumbers every row", () => {
    const rng = new Rng(3);
    const [count, stride, n] = [300, 8, 700];
    const keys = Uint8Array.from({ length: count * stride }, () => Math.floor(rng.next() * 32));
    const before = keys.slice();
    const of = Int32Array.from({ length: n }, () => Math.floor(rng.next() * count));
    const was = of.slice();
    const cols = Int32Array.from([5, 0, 2]);
    sortRows(keys, count, stride, cols, of, n, new Uint8Array(count * stride));
    const vec = (k: Uint8Array, u: number) => Array.from(k.subarray(u * stride, u * stride + stride));
    for (let i = 0; i < n; i++) expect(vec(keys, of[i])).toEqual(vec(before, was[i]));
    // the columns' bytes as one number, the first column most significant
    const sortKey = (u: number) => Array.from(cols).reduce((k, c) => k * 32 + keys[u * stride + c], 0);
    for (let u = 1; u < count; u++) expect(sortKey(u - 1)).toBeLessThanOrEqual(sortKey(u));
  });

  it("chooses the columns of the walked trees' upper splits first, none without a walked tree", () => {
    // tree 0 (walked): root on column 7, its children on 3 and 4; tree 1 (not walked): root on 9
    const NODE = 4;
    const rec = (col: number, left: number, right: number) => [col, left, right, 1];
    const leaf = (at: number) => [0, at, at, 0];
    const nodes = Int32Array.from([
      ...rec(7, 1 * NODE, 2 * NODE),
      ...rec(3, 3 * NODE, 4 * NODE),
      ...rec(4, 5 * NODE, 6 * NODE),
      ...[3, 4, 5, 6].flatMap((r) => leaf(r * NODE)),
      ...rec(9, 8 * NODE, 9 * NODE),
      ...[8, 9].flatMap((r) => leaf(r * NODE)),
    ]);
    const m = { nodes, roots: Int32Array.from([0, 7 * NODE]), leafStart: Int32Array.from([3 * NODE, 8 * NODE]) };
    expect(Array.from(sortColumns(m, (t) => t === 0))).toEqual([7, 3, 4]);
    expect(Array.from(sortColumns(m, () => false))).toEqual([]);
  });
});
