/**
 * A model compiled for ./predict, once per model object (WeakMap cache), so that every split is
 * the same cheap test: bit `key` of the node's 32-bit mask, where key (0..31) is one byte of a
 * per-row key vector (`stride` bytes per row, filled by predict's rowKeys).
 *
 * Numeric feature f: the model's distinct thresholds on f, as order keys (`thresholdKey`), sorted
 * (`thresholds` from `thrStart[f]`, `thrCount[f]` of them). A value's rank r = how many of them
 * are below it; then x <= threshold i iff r <= i. Ranks are split in words of 29 (key columns
 * numCol[f] + j): the byte of word j is 0 when r is below the word, 1 + r - 29 j inside it, 31
 * above it, 30 for NaN. A split on threshold i (word j = i / 29) reads word j and its mask has bit
 * 0, bits 1 .. 1 + i - 29 j, and bit 30 when NaN goes left: exactly `x <= t` plus defaultLeft.
 *
 * Categorical feature f: key columns catCol[f] + j hold 1 + code - 30 j for an integral code in
 * [30 j, 30 j + 30), 0 for NaN, 31 for any other value; the mask has bit 1 + code - 30 j per left
 * code and bit 0 when NaN goes left. A left set spanning several words becomes a chain of
 * records, one per word, each sending the rest right to the next.
 *
 * Records: NODE int32 slots [column, left, right, mask]; children are record offsets. Each
 * tree's split records come first, then one record per leaf, from `leafStart[tree]` on: a leaf's
 * children are itself, so a walk that reached a leaf stays there and several rows can walk a tree
 * in lockstep; it is done once its offset is >= leafStart, and leafAt[offset / NODE] is the value. (Packing column and a 16-bit mask in one slot saves a load per step but doubles the
 * key bytes per row, which measured slower.)
 */
import { type LeafMasks, leafMasks } from "./leaf-masks";
import { type LeafTables, leafTables } from "./leaf-table";
import type { GbdtModel } from "./model";
import { sortColumns } from "./row-order";

const NODE = 4;
export const RANKS_PER_WORD = 29;
export const CODES_PER_WORD = 30;
const NAN_RANK = 30;
/**
 * Wider key vectors (only from absurd category codes or hundreds of thousands of thresholds)
 * are not worth filling: predict then walks the model as stored.
 */
const MAX_STRIDE = 0x10000;

export interface FlatModel {
  nodes: Int32Array;
  /** Per tree: offset of its root record (a leaf record for a tree with no split). */
  roots: Int32Array;
  /** Per tree: offset of its first leaf record. */
  leafStart: Int32Array;
  /** Per record (offset / NODE): the leaf's value, for a leaf record. */
  leafAt: Float64Array;
  /** Key bytes per row. */
  stride: number;
  thresholds: Int32Array;
  thrStart: Int32Array;
  thrCount: Int32Array;
  /** Per feature: first key column and number of words, of numeric ranks and categorical codes. */
  numCol: Int32Array;
  numWords: Int32Array;
  catCol: Int32Array;
  catWords: Int32Array;
  /**
   * Key bytes for rowKeys to copy, W = max words of a feature each: 31 (above the word / other
   * value), 0 (below / NaN code), 30 (NaN rank). Copying n <= W bytes from pattern[W - j] gives j
   * bytes 31 then 0s; from pattern[W], all 0; from pattern[2 W], all 30.
   */
  pattern: Uint8Array;
  /** Small trees' leaf tables (./leaf-table). */
  tables: LeafTables;
  /** Mid-size trees' leaf masks (./leaf-masks), for trees without a leaf table. */
  masks: LeafMasks;
  /** Key columns to sort rows by before the walk of the other trees (./row-order); empty: no walk. */
  sortColumns: Int32Array;
}

const cache = new WeakMap<GbdtModel, FlatModel | null>();
const f32 = new Float32Array(1);
const i32 = new Int32Array(f32.buffer);

/** Order-preserving int32 of a float32 bit pattern (not NaN): negative floats flipped, -0 = +0. */
export const orderKey = (bits: number) => (bits < 0 ? (bits ^ 0x7fffffff) + 1 : bits);

/**
 * Key of a threshold t such that, for every non-NaN float32 x, x <= t iff orderKey(x) <= it
 * (a NaN threshold gets INT32_MIN, below every such key: everything goes right, as x <= NaN).
 * @internal exported for its unit test (test/ml/gbdt-predict-flat.test.ts)
 */
export function thresholdKey(t: number): number {
  if (t !== t) return -0x80000000;
  let f = Math.fround(t);
  if (f > t) {
    // one float32 step down: the largest float32 <= t
    if (f === 0) return -1; // the key of -1.4e-45
    f32[0] = f;
    i32[0] += f > 0 ? -1 : 1;
    f = f32[0];
  }
  f32[0] = f;
  return orderKey(i32[0]);
}

/**
 * Codes below 2^24, where every integer is a float32. A left set's larger codes are left out (a
 * value equal to one would go right); featurized codes are dictionary indices, far smaller.
 */
export const isCode = (c: number) => Number.isInteger(c) && c >= 0 && c < 2 ** 24;

/** The compiled model, or null when its key vector would exceed MAX_STRIDE bytes per row. */
export function flatten(model: GbdtModel): FlatModel | null {
  const hit = cache.get(model);
  if (hit !== undefined) return hit;
  const F = model.numFeatures;
  const thrSets = Array.from({ length: F }, () => new Set<number>());
  const catWords = new Int32Array(F);
  // per split: [word, mask] per record (one, or a chain for a wide categorical set)
  const chains = model.trees.map((t) =>
    t.left.map((_, j): [number, number][] => {
      const f = t.splitFeature[j];
      if (!(f >= 0 && f < F)) throw new Error(`predict: split on feature ${f} of ${F}`);
      if (!t.isCategorical[j]) {
        thrSets[f].add(thresholdKey(t.threshold[j]));
        return [[0, 0]]; // filled in below, once the ranks are known
      }
      const words = new Map<number, number>();
      for (const c of t.leftCategories[j]) {
        if (!isCode(c)) continue;
        const w = Math.floor(c / CODES_PER_WORD);
        words.set(w, (words.get(w) ?? 0) | (1 << (1 + c - w * CODES_PER_WORD)));
        catWords[f] = Math.max(catWords[f], w + 1);
      }
      catWords[f] = Math.max(catWords[f], 1);
      const chain = [...words].sort((a, b) => a[0] - b[0]);
      if (!chain.length) chain.push([0, 0]);
      if (t.defaultLeft[j]) chain[0][1] |= 1; // NaN is 0 in every code column
      return chain;
    }),
  );
  const sorted = thrSets.map((s) => Int32Array.from(s).sort());
  const rank = sorted.map((s) => new Map(Array.from(s, (k, i) => [k, i])));
  const m: FlatModel = {
    nodes: new Int32Array(0),
    roots: new Int32Array(model.trees.length),
    leafStart: new Int32Array(model.trees.length),
    leafAt: new Float64Array(0),
    stride: 0,
    thresholds: new Int32Array(sorted.reduce((s, a) => s + a.length, 0)),
    thrStart: new Int32Array(F),
    thrCount: Int32Array.from(sorted, (s) => s.length),
    numCol: new Int32Array(F),
    numWords: Int32Array.from(sorted, (s) => Math.ceil(s.length / RANKS_PER_WORD)),
    catCol: new Int32Array(F),
    catWords,
    pattern: new Uint8Array(0),
    tables: { start: new Int32Array(0), values: new Float64Array(0), cols: new Int32Array(0), masks: new Int32Array(0) },
    masks: {
      start: new Int32Array(0),
      values: new Float64Array(0),
      count: new Int32Array(0),
      first: new Int32Array(0),
      cols: new Int32Array(0),
      offsets: new Int32Array(0),
      masks: new Int32Array(0),
      wide: new Uint8Array(0),
    },
    sortColumns: new Int32Array(0),
  };
  for (let f = 0, thr = 0; f < F; f++) {
    m.thrStart[f] = thr;
    m.thresholds.set(sorted[f], thr);
    thr += sorted[f].length;
    m.numCol[f] = m.stride;
    m.stride += m.numWords[f];
    m.catCol[f] = m.stride;
    m.stride += catWords[f];
  }
  // whole int32 words per row: the predictor hashes and compares rows' keys word by word
  m.stride = (m.stride + 3) & ~3;
  if (m.stride > MAX_STRIDE) {
    cache.set(model, null);
    return null;
  }
  let W = 0;
  for (let f = 0; f < F; f++) W = Math.max(W, m.numWords[f], catWords[f]);
  m.pattern = new Uint8Array(3 * W).fill(31, 0, W).fill(30, 2 * W);

  let numRecords = 0;
  for (let ti = 0; ti < model.trees.length; ti++) {
    for (const chain of chains[ti]) numRecords += chain.length;
    numRecords += model.trees[ti].leafValue.length;
  }
  const nodes = (m.nodes = new Int32Array(numRecords * NODE));
  m.leafAt = new Float64Array(numRecords);
  let rec = 0; // first record of the tree
  model.trees.forEach((t, ti) => {
    const first = new Int32Array(t.left.length); // record of each split (head of its chain)
    let r = rec;
    chains[ti].forEach((chain, j) => {
      first[j] = r;
      r += chain.length;
    });
    const leaves = r;
    const child = (c: number) => (c >= 0 ? first[c] : leaves + ~c) * NODE;
    m.roots[ti] = (t.left.length ? first[0] : leaves) * NODE;
    m.leafStart[ti] = leaves * NODE;
    chains[ti].forEach((chain, j) => {
      const f = t.splitFeature[j];
      let o = first[j] * NODE;
      if (!t.isCategorical[j]) {
        const i = rank[f].get(thresholdKey(t.threshold[j]))!;
        const word = Math.floor(i / RANKS_PER_WORD);
        const mask = (2 ** (2 + i - word * RANKS_PER_WORD) - 1) | (t.defaultLeft[j] ? 1 << NAN_RANK : 0);
        nodes[o] = m.numCol[f] + word;
        nodes[o + 1] = child(t.left[j]);
        nodes[o + 2] = child(t.right[j]);
        nodes[o + 3] = mask;
        return;
      }
      chain.forEach(([word, mask], c) => {
        nodes[o] = m.catCol[f] + word;
        nodes[o + 1] = child(t.left[j]);
        nodes[o + 2] = c + 1 < chain.length ? o + NODE : child(t.right[j]);
        nodes[o + 3] = mask;
        o += NODE;
      });
    });
    for (let j = 0; j < t.leafValue.length; j++) {
      const o = (leaves + j) * NODE;
      nodes[o + 1] = nodes[o + 2] = o;
      m.leafAt[leaves + j] = t.leafValue[j];
    }
    rec = leaves + t.leafValue.length;
  });
  m.tables = leafTables(m);
  m.masks = leafMasks(m, (t) => m.tables.start[t] < 0);
  m.sortColumns = sortColumns(m, (t) => m.tables.start[t] < 0 && m.masks.start[t] < 0 && m.roots[t] < m.leafStart[t]);
  cache.set(model, m);
  return m;
}
