/**
 * Leaf tables for small trees: a tree with S <= MAX_TABLE_SPLITS split records (./flat) gets a
 * table of 2^S leaf values indexed by the outcomes of all its tests, bit s = 1 when record s
 * sends the row left. A row's leaf is then found without a walk: S independent bit tests (no
 * chain of dependent loads, no loop that waits for the slowest of several rows) and one load.
 * Combinations no row can produce (x <= 3 false, x <= 5 true) get whatever leaf the walk of
 * those bits ends in; they are never read. The value is the same leaf value as the walk's, so
 * sums are unchanged.
 */

/** 2^8 doubles = 2 KB per tree, in L1 while a block of rows goes through the tree. */
const MAX_TABLE_SPLITS = 8;

export interface LeafTables {
  /** Per tree: its table's first value in `values`, or -1 (a leaf root or too many splits). */
  start: Int32Array;
  values: Float64Array;
  /** Per tree, MAX_TABLE_SPLITS each: its records' key columns and masks (0 past its splits). */
  cols: Int32Array;
  masks: Int32Array;
}

const NODE = 4;

/** The parts of ./flat's compiled model that the tables read (see FlatModel there). */
export interface TreeRecords {
  nodes: Int32Array;
  roots: Int32Array;
  leafStart: Int32Array;
  leafAt: Float64Array;
  stride: number;
}

/** The tables of every tree of m with 1 to MAX_TABLE_SPLITS split records. */
export function leafTables(m: TreeRecords): LeafTables {
  const T = m.roots.length;
  const start = new Int32Array(T).fill(-1);
  let size = 0;
  for (let t = 0; t < T; t++) {
    const S = splitCount(m, t);
    if (S < 1 || S > MAX_TABLE_SPLITS) continue;
    start[t] = size;
    size += 1 << S;
  }
  const values = new Float64Array(size);
  const cols = new Int32Array(T * MAX_TABLE_SPLITS);
  const masks = new Int32Array(T * MAX_TABLE_SPLITS);
  for (let t = 0; t < T; t++) {
    if (start[t] < 0) continue;
    const root = m.roots[t];
    const leaves = m.leafStart[t];
    for (let j = 0; j < splitCount(m, t); j++) {
      cols[t * MAX_TABLE_SPLITS + j] = m.nodes[root + NODE * j];
      masks[t * MAX_TABLE_SPLITS + j] = m.nodes[root + NODE * j + 3];
    }
    for (let c = 0; c < 1 << splitCount(m, t); c++) {
      let n = root;
      while (n < leaves) n = m.nodes[n + 2 - ((c >> ((n - root) / NODE)) & 1)];
      values[start[t] + c] = m.leafAt[n / NODE];
    }
  }
  return { start, values, cols, masks };
}

/** Split records of tree t: they come first, from its root up to its first leaf record. */
const splitCount = (m: TreeRecords, t: number) => (m.leafStart[t] - m.roots[t]) / NODE;

/**
 * Adds tree t's leaf value (t has a table) to out[o0 + i * K] for the n rows whose keys start at
 * i * stride. The tests are unrolled for 1, 2, 3, 4, 6 or 8 records; a missing one reads column 0
 * with mask 0, a bit that is always 0. (Plain locals: a closure or an array here costs more than
 * the tests.)
 */
export function scoreTable(
  m: TreeRecords & { tables: LeafTables },
  t: number,
  keys: Uint8Array,
  n: number,
  out: Float64Array,
  o0: number,
  K: number,
) {
  const s = m.stride;
  const { cols, masks, values, start } = m.tables;
  const S = (m.leafStart[t] - m.roots[t]) / NODE;
  const v0 = start[t];
  const p = t * MAX_TABLE_SPLITS;
  const c0 = cols[p];
  const m0 = masks[p];
  if (S <= 1) {
    for (let i = 0, b = 0, o = o0; i < n; i++, b += s, o += K) out[o] += values[v0 + ((m0 >>> keys[b + c0]) & 1)];
    return;
  }
  const c1 = cols[p + 1];
  const m1 = masks[p + 1];
  if (S <= 2) {
    for (let i = 0, b = 0, o = o0; i < n; i++, b += s, o += K)
      out[o] += values[v0 + (((m0 >>> keys[b + c0]) & 1) | (((m1 >>> keys[b + c1]) & 1) << 1))];
    return;
  }
  const c2 = cols[p + 2];
  const m2 = masks[p + 2];
  if (S <= 3) {
    for (let i = 0, b = 0, o = o0; i < n; i++, b += s, o += K)
      out[o] += values[v0 + (((m0 >>> keys[b + c0]) & 1) | (((m1 >>> keys[b + c1]) & 1) << 1) | (((m2 >>> keys[b + c2]) & 1) << 2))];
    return;
  }
  const c3 = cols[p + 3];
  const m3 = masks[p + 3];
  if (S <= 4) {
    for (let i = 0, b = 0, o = o0; i < n; i++, b += s, o += K)
      out[o] +=
        values[
          v0 +
            (((m0 >>> keys[b + c0]) & 1) |
              (((m1 >>> keys[b + c1]) & 1) << 1) |
              (((m2 >>> keys[b + c2]) & 1) << 2) |
              (((m3 >>> keys[b + c3]) & 1) << 3))
        ];
    return;
  }
  const c4 = cols[p + 4];
  const m4 = masks[p + 4];
  const c5 = cols[p + 5];
  const m5 = masks[p + 5];
  if (S <= 6) {
    for (let i = 0, b = 0, o = o0; i < n; i++, b += s, o += K)
      out[o] +=
        values[
          v0 +
            (((m0 >>> keys[b + c0]) & 1) |
              (((m1 >>> keys[b + c1]) & 1) << 1) |
              (((m2 >>> keys[b + c2]) & 1) << 2) |
              (((m3 >>> keys[b + c3]) & 1) << 3) |
              (((m4 >>> keys[b + c4]) & 1) << 4) |
              (((m5 >>> keys[b + c5]) & 1) << 5))
        ];
    return;
  }
  const c6 = cols[p + 6];
  const m6 = masks[p + 6];
  const c7 = cols[p + 7];
  const m7 = masks[p + 7];
  for (let i = 0, b = 0, o = o0; i < n; i++, b += s, o += K)
    out[o] +=
      values[
        v0 +
          (((m0 >>> keys[b + c0]) & 1) |
            (((m1 >>> keys[b + c1]) & 1) << 1) |
            (((m2 >>> keys[b + c2]) & 1) << 2) |
            (((m3 >>> keys[b + c3]) & 1) << 3) |
            (((m4 >>> keys[b + c4]) & 1) << 4) |
            (((m5 >>> keys[b + c5]) & 1) << 5) |
            (((m6 >>> keys[b + c6]) & 1) << 6) |
            (((m7 >>> keys[b + c7]) & 1) << 7))
      ];
}
