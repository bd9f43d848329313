/**
 * Leaf masks for mid-size trees (more split records than a leaf table takes, at most 64 leaves):
 * the exit leaf found from bitvectors, after QuickScorer (Lucchese et al., SIGIR 2015), without
 * a walk. Number a tree's leaves left to right, one bit each. A split that sends a row right
 * rules out every leaf of its left subtree; AND the masks of all the splits that send the row
 * right, and the row's leaf is the lowest bit left. (Every leaf left of the row's leaf is in the
 * left subtree of a split on its path that sent it right; its own leaf is in the left subtree
 * only of splits that sent it left. So this holds whatever the other splits say.)
 *
 * Here every split is a bit test on one key byte (./flat), 0..31, so all the splits of a tree
 * that read the same key column are folded into one table of 32 masks per column: the AND of the
 * masks of those of them that the byte sends right. A row's leaf is then one load per distinct
 * column of the tree, ANDed, and the lowest set bit: no chain of dependent loads and nothing to
 * wait for (the lockstep walk waits for the slowest of eight rows). Exact: the same leaf, the same
 * value, added in the same order.
 *
 * Not for trees with a multi-word categorical split (a chain of records sharing one left child:
 * not a tree, and the rule above fails on it); those are walked.
 */

/** One 32-bit mask per row and tree up to 32 leaves, two (a low and a high word) up to 64. */
const MAX_MASK_LEAVES = 64;
/**
 * Trees reading more key columns are walked: a row then costs more loads here than the walk's
 * few steps (shuttle's searched model, trees of 9 to 11 columns: 1.16-1.22x the walk's time;
 * those of up to 8, unrolled in one expression: 0.75-0.88x).
 */
const MAX_MASK_COLUMNS = 8;
const NODE = 4;

export interface LeafMasks {
  /** Per tree: its first value in `values` (leaves left to right), or -1 (not masked). */
  start: Int32Array;
  values: Float64Array;
  /** Per tree: how many key columns it reads; its columns and their tables from `first[t]`. */
  count: Int32Array;
  first: Int32Array;
  /** Per column slot: the key column, and the offset of its 32 masks in `masks`. */
  cols: Int32Array;
  offsets: Int32Array;
  /**
   * 32 masks per slot, by key byte; a tree of more than 32 leaves has 64 per slot, the low
   * words then the high words. The first 64 are all ones (a padding slot's, with column 0).
   */
  masks: Int32Array;
  /** Per tree: 1 when its masks have two words. */
  wide: Uint8Array;
}

/** The parts of ./flat's compiled model that the masks read (see FlatModel there). */
interface TreeRecords {
  nodes: Int32Array;
  roots: Int32Array;
  leafStart: Int32Array;
  leafAt: Float64Array;
}

/**
 * The masks of every tree with `eligible(t)`, at least two split records, at most 64 leaves and
 * MAX_MASK_COLUMNS key columns, and no record chains.
 */
export function leafMasks(m: TreeRecords, eligible: (t: number) => boolean): LeafMasks {
  const T = m.roots.length;
  const start = new Int32Array(T).fill(-1);
  const count = new Int32Array(T);
  const first = new Int32Array(T);
  const values: number[] = [];
  const cols: number[] = [];
  const offsets: number[] = [];
  const masks: number[] = new Array(64).fill(-1);
  const wide = new Uint8Array(T);
  for (let t = 0; t < T; t++) {
    const root = m.roots[t];
    const leaves = m.leafStart[t];
    const splits = (leaves - root) / NODE;
    // leaf records run up to the next tree's first record (its root)
    const leafCount = ((t + 1 < T ? m.roots[t + 1] : m.nodes.length) - leaves) / NODE;
    // a proper binary tree has one leaf more than splits; a record chain adds splits, not leaves
    if (!eligible(t) || splits < 2 || leafCount > MAX_MASK_LEAVES || leafCount !== splits + 1) continue;
    const treeCols = new Set<number>();
    for (let n = root; n < leaves; n += NODE) treeCols.add(m.nodes[n]);
    if (treeCols.size > MAX_MASK_COLUMNS) continue;
    const words = leafCount > 32 ? 2 : 1;
    wide[t] = words - 1;
    // leaves left to right, and each split's left-subtree leaves as a bit range
    const bit = new Map<number, number>();
    const leftBits = new Map<number, [number, number]>();
    const visit = (n: number): [number, number] => {
      if (n >= leaves) {
        bit.set(n, bit.size);
        values.push(m.leafAt[n / NODE]);
        return [bit.size - 1, bit.size];
      }
      const [lo, mid] = visit(m.nodes[n + 1]);
      const [, hi] = visit(m.nodes[n + 2]);
      leftBits.set(n, [rangeMask(lo, mid), rangeMask(lo - 32, mid - 32)]);
      return [lo, hi];
    };
    start[t] = values.length;
    visit(root);
    first[t] = cols.length;
    const slotOf = new Map<number, number>();
    for (let n = root; n < leaves; n += NODE) {
      const col = m.nodes[n];
      let slot = slotOf.get(col);
      if (slot === undefined) {
        slot = cols.length;
        slotOf.set(col, slot);
        cols.push(col);
        offsets.push(masks.length);
        for (let v = 0; v < 32 * words; v++) masks.push(-1);
      }
      const mask = m.nodes[n + 3];
      const [low, high] = leftBits.get(n)!;
      for (let v = 0; v < 32; v++) {
        if (((mask >>> v) & 1) !== 0) continue;
        masks[offsets[slot] + v] &= ~low;
        if (words > 1) masks[offsets[slot] + 32 + v] &= ~high;
      }
    }
    count[t] = cols.length - first[t];
  }
  return {
    start,
    values: Float64Array.from(values),
    count,
    first,
    cols: Int32Array.from(cols),
    offsets: Int32Array.from(offsets),
    masks: Int32Array.from(masks),
    wide,
  };
}

/** Bits lo .. hi - 1 of a 32-bit word (those of them in 0..31). */
function rangeMask(lo: number, hi: number): number {
  const a = Math.max(lo, 0);
  const b = Math.min(hi, 32);
  if (a >= b) return 0;
  return b - a === 32 ? -1 : ((1 << (b - a)) - 1) << a;
}

/**
 * Adds tree t's leaf value (t has masks) to out[o0 + i * K] for the n rows whose keys start at
 * i * stride: the AND of one mask per key column, unrolled for up to 8 columns (missing ones
 * read column 0 in the all-ones slot), then the lowest set bit. (Plain locals, as in
 * ./leaf-table: a closure or an array here costs more than the loads.)
 */
export function scoreMasks(lm: LeafMasks, t: number, stride: number, keys: Uint8Array, n: number, out: Float64Array, o0: number, K: number) {
  if (lm.wide[t]) {
    scoreWide(lm, t, stride, keys, n, out, o0, K);
    return;
  }
  const { cols, offsets, masks, values } = lm;
  const C = lm.count[t];
  const f = lm.first[t];
  // leaf bit b is values[v0 + b - 31]: 31 - clz32(x & -x) is the lowest set bit of x
  const v0 = lm.start[t] + 31;
  const c0 = cols[f]; // C >= 1: every masked tree has a split
  const k0 = offsets[f];
  const c1 = 1 < C ? cols[f + 1] : 0;
  const k1 = 1 < C ? offsets[f + 1] : 0;
  const c2 = 2 < C ? cols[f + 2] : 0;
  const k2 = 2 < C ? offsets[f + 2] : 0;
  const c3 = 3 < C ? cols[f + 3] : 0;
  const k3 = 3 < C ? offsets[f + 3] : 0;
  if (C <= 4) {
    for (let i = 0, b = 0, o = o0; i < n; i++, b += stride, o += K) {
      const x = masks[k0 + keys[b + c0]] & masks[k1 + keys[b + c1]] & masks[k2 + keys[b + c2]] & masks[k3 + keys[b + c3]];
      out[o] += values[v0 - Math.clz32(x & -x)];
    }
    return;
  }
  const c4 = cols[f + 4];
  const k4 = offsets[f + 4];
  const c5 = 5 < C ? cols[f + 5] : 0;
  const k5 = 5 < C ? offsets[f + 5] : 0;
  const c6 = 6 < C ? cols[f + 6] : 0;
  const k6 = 6 < C ? offsets[f + 6] : 0;
  const c7 = 7 < C ? cols[f + 7] : 0;
  const k7 = 7 < C ? offsets[f + 7] : 0;
  for (let i = 0, b = 0, o = o0; i < n; i++, b += stride, o += K) {
    const x =
      masks[k0 + keys[b + c0]] &
      masks[k1 + keys[b + c1]] &
      masks[k2 + keys[b + c2]] &
      masks[k3 + keys[b + c3]] &
      masks[k4 + keys[b + c4]] &
      masks[k5 + keys[b + c5]] &
      masks[k6 + keys[b + c6]] &
      masks[k7 + keys[b + c7]];
    out[o] += values[v0 - Math.clz32(x & -x)];
  }
}

/**
 * scoreMasks for a tree of 33 to 64 leaves: a low and a high word; the leaf is the low word's
 * lowest set bit, or 32 + the high word's when the low word is 0 (chosen without a branch).
 */
function scoreWide(lm: LeafMasks, t: number, stride: number, keys: Uint8Array, n: number, out: Float64Array, o0: number, K: number) {
  const { cols, offsets, masks, values } = lm;
  const C = lm.count[t];
  const f = lm.first[t];
  const v0 = lm.start[t];
  for (let i = 0, b = 0, o = o0; i < n; i++, b += stride, o += K) {
    let lo = -1;
    let hi = -1;
    for (let c = f; c < f + C; c++) {
      const k = offsets[c] + keys[b + cols[c]];
      lo &= masks[k];
      hi &= masks[k + 32];
    }
    // all ones when lo has a bit, else 0
    const some = (lo | -lo) >> 31;
    const leaf = ((31 - Math.clz32(lo & -lo)) & some) | ((63 - Math.clz32(hi & -hi)) & ~some);
    out[o] += values[v0 + leaf];
  }
}
