/**
 * Prediction on the featurized float32 matrix with exactly the model.ts semantics:
 * NaN follows defaultLeft; numeric: x <= threshold goes left; categorical: the code goes left
 * when it is in leftCategories, any other value (unseen, negative, fractional) goes right.
 *
 * Speed (2-3x a plain row-by-row walk): the model is compiled once (./flat) so that every split
 * is one branch-free bit test on a byte of the row's key vector; rows are predicted in blocks,
 * tree-major inside a block (the block's keys and a tree's records stay in cache). A tree of at
 * most 8 split records is looked up in its leaf table (./leaf-table: all its tests at once, no
 * walk); a mid-size one (up to 64 leaves reading up to 8 key columns) by its leaf masks
 * (./leaf-masks: one load per key column and the lowest set bit, QuickScorer-style); a larger
 * one is walked by eight rows in lockstep so that their dependent loads overlap.
 * Models of 16 trees or more score each distinct key vector once (./distinct-keys), in an order
 * that wastes fewer lockstep steps (./row-order). Each row's scores are still
 * summed in tree order starting from baseScore, so the doubles equal a plain traversal's
 * (test/ml/gbdt-predict-flat.test.ts).
 */

import { compactDistinct } from "./distinct-keys";
import * as flat from "./flat";
import * as leafMasks from "./leaf-masks";
import * as leafTable from "./leaf-table";
import type { GbdtModel } from "./model";
import { transformScores } from "./objective";
import { sortRows } from "./row-order";

// Local copies: an imported binding can be a getter under some loaders (tsx, vitest), far too
// slow in a loop.
const orderKey = flat.orderKey;
const RANKS = flat.RANKS_PER_WORD;
const CODES = flat.CODES_PER_WORD;
const scoreTable = leafTable.scoreTable;
const scoreMasks = leafMasks.scoreMasks;

/** Key bytes per block: in L1 next to the records of the current tree. */
const BLOCK_BYTES = 16384;
/** Models of fewer trees are cheap enough per row that looking for equal rows would not pay. */
const DISTINCT_MIN_TREES = 16;
/** Fewer distinct rows than two lockstep groups gain nothing from sorting (and one row stays as cheap as before). */
const SORT_MIN_ROWS = 16;
/** Rows whose keys are searched for duplicates at once (keys and scores of a chunk in memory). */
const DISTINCT_CHUNK_ROWS = 65536;

/** Raw scores, row-major [numRows x numOutputs]. `data` is row-major [numRows x numFeatures]. */
export function predictRaw(model: GbdtModel, data: Float32Array, numRows: number, numTrees = model.trees.length): Float64Array {
  const K = model.numOutputs;
  const F = model.numFeatures;
  if (data.length < numRows * F) throw new Error(`predictRaw: expected ${numRows * F} values, got ${data.length}`);
  const out = new Float64Array(numRows * K);
  const T = Math.min(numTrees, model.trees.length);
  for (let i = 0; i < numRows * K; i += K) for (let k = 0; k < K; k++) out[i + k] = model.baseScore[k];
  const m = flat.flatten(model);
  if (!m) {
    walkPlain(model, data, numRows, T, out);
    return out;
  }
  const block = Math.min(numRows, Math.max(16, Math.min(256, Math.floor(BLOCK_BYTES / Math.max(m.stride, 1)))));
  const bits = new Int32Array(data.buffer, data.byteOffset, data.length);
  if (T < DISTINCT_MIN_TREES) {
    const keys = new Uint8Array(block * m.stride);
    for (let r0 = 0; r0 < numRows; r0 += block) {
      const r1 = Math.min(numRows, r0 + block);
      rowKeys(m, data, bits, F, r0, r1, keys);
      scoreRows(m, T, keys, r1 - r0, out, r0 * K, K);
    }
    return out;
  }
  // chunks of rows: each chunk's distinct key vectors are scored, in blocks, then copied out
  const chunk = Math.min(numRows, DISTINCT_CHUNK_ROWS);
  const keys = new Uint8Array(chunk * m.stride);
  const of = new Int32Array(chunk);
  const scores = new Float64Array(chunk * K);
  let scratch: Uint8Array | undefined;
  for (let c0 = 0; c0 < numRows; c0 += chunk) {
    const c1 = Math.min(numRows, c0 + chunk);
    rowKeys(m, data, bits, F, c0, c1, keys);
    const count = compactDistinct(keys, c1 - c0, m.stride, of);
    if (m.sortColumns.length && count >= SORT_MIN_ROWS) {
      scratch ??= new Uint8Array(chunk * m.stride);
      sortRows(keys, count, m.stride, m.sortColumns, of, c1 - c0, scratch);
    }
    for (let i = 0; i < count * K; i += K) for (let k = 0; k < K; k++) scores[i + k] = model.baseScore[k];
    for (let u0 = 0; u0 < count; u0 += block) {
      const u1 = Math.min(count, u0 + block);
      scoreRows(m, T, keys.subarray(u0 * m.stride, u1 * m.stride), u1 - u0, scores, u0 * K, K);
    }
    for (let i = c0; i < c1; i++) for (let k = 0, u = of[i - c0] * K; k < K; k++) out[i * K + k] = scores[u + k];
  }
  return out;
}

/**
 * Adds every tree's leaf value to out[o0 + i * K + (t mod K)] for the n rows whose keys start at
 * i * stride, tree by tree (each row's sum stays in tree order): small trees by their leaf table,
 * mid-size ones by their leaf masks, the others eight rows at a time in lockstep, then the last
 * rows one by one.
 */
function scoreRows(m: flat.FlatModel, T: number, keys: Uint8Array, n: number, out: Float64Array, o0: number, K: number) {
  const { roots, leafStart, nodes, leafAt, stride } = m;
  const tabled = m.tables.start;
  const masked = m.masks.start;
  const groups = n - (n & 7);
  for (let t = 0, k = 0; t < T; t++, k = k + 1 === K ? 0 : k + 1) {
    if (tabled[t] >= 0) {
      scoreTable(m, t, keys, n, out, o0 + k, K);
      continue;
    }
    if (masked[t] >= 0) {
      scoreMasks(m.masks, t, stride, keys, n, out, o0 + k, K);
      continue;
    }
    if (groups > 0) scoreTree(m, t, keys, groups, out, o0 + k, K);
    for (let i = groups; i < n; i++) {
      let a = roots[t];
      while (a < leafStart[t]) a = step(nodes, keys, i * stride, a);
      out[o0 + i * K + k] += leafAt[a >> 2];
    }
  }
}

/**
 * The key vectors (see ./flat) of rows r0 <= i < r1, into keys from 0; `bits` is `data` viewed as
 * int32. Also what ./alike-rows groups rows by.
 */
export function rowKeys(m: flat.FlatModel, data: Float32Array, bits: Int32Array, F: number, r0: number, r1: number, keys: Uint8Array) {
  const { stride, thresholds, thrStart, thrCount, numCol, numWords, catCol, catWords, pattern: P } = m;
  const W = P.length / 3;
  for (let i = r0, o = 0; i < r1; i++, o += stride) {
    for (let f = 0; f < F; f++) {
      const x = data[i * F + f];
      const nan = x !== x;
      let words = numWords[f];
      if (words > 0) {
        const col = o + numCol[f];
        if (nan) for (let j = 0; j < words; j++) keys[col + j] = P[2 * W + j];
        else {
          // rank = how many thresholds are below x: binary search without data-dependent branches
          const key = orderKey(bits[i * F + f]);
          let lo = thrStart[f];
          for (let n = thrCount[f]; n > 1; ) {
            const half = n >> 1;
            lo += +(thresholds[lo + half] < key) * half;
            n -= half;
          }
          const r = lo - thrStart[f] + +(thresholds[lo] < key);
          const word = Math.floor(r / RANKS);
          for (let j = 0; j < words; j++) keys[col + j] = P[W - word + j];
          if (word < words) keys[col + word] = 1 + r - RANKS * word;
        }
      }
      words = catWords[f];
      if (words > 0) {
        const col = o + catCol[f];
        for (let j = 0; j < words; j++) keys[col + j] = P[(nan ? W : 0) + j];
        const word = Math.floor(x / CODES);
        if (x >= 0 && word < words && x === Math.floor(x)) keys[col + word] = 1 + x - CODES * word;
      }
    }
  }
}

/**
 * Adds tree t's leaf value to out[i * K + k] for the rows r0 <= i < r1 (keys from 0), r1 - r0 a
 * multiple of 8. Eight rows walk the tree in lockstep, so that their chains of dependent loads
 * overlap and one loop branch per step serves all eight.
 */
function scoreTree(m: flat.FlatModel, t: number, keys: Uint8Array, n: number, out: Float64Array, o0: number, K: number) {
  const { nodes, leafAt, stride: s } = m;
  const root = m.roots[t];
  const leaves = m.leafStart[t];
  if (root >= leaves) {
    const v = leafAt[root >> 2];
    for (let i = 0; i < n; i++) out[o0 + i * K] += v;
    return;
  }
  for (let i = 0; i < n; i += 8) {
    const b = i * s;
    let [a0, a1, a2, a3, a4, a5, a6, a7] = [root, root, root, root, root, root, root, root];
    do {
      a0 = step(nodes, keys, b, a0);
      a1 = step(nodes, keys, b + s, a1);
      a2 = step(nodes, keys, b + 2 * s, a2);
      a3 = step(nodes, keys, b + 3 * s, a3);
      a4 = step(nodes, keys, b + 4 * s, a4);
      a5 = step(nodes, keys, b + 5 * s, a5);
      a6 = step(nodes, keys, b + 6 * s, a6);
      a7 = step(nodes, keys, b + 7 * s, a7);
    } while (
      (+(a0 < leaves) | +(a1 < leaves) | +(a2 < leaves) | +(a3 < leaves) | +(a4 < leaves) | +(a5 < leaves) | +(a6 < leaves) | +(a7 < leaves)) !==
      0
    );
    const o = o0 + i * K;
    out[o] += leafAt[a0 >> 2];
    out[o + K] += leafAt[a1 >> 2];
    out[o + 2 * K] += leafAt[a2 >> 2];
    out[o + 3 * K] += leafAt[a3 >> 2];
    out[o + 4 * K] += leafAt[a4 >> 2];
    out[o + 5 * K] += leafAt[a5 >> 2];
    out[o + 6 * K] += leafAt[a6 >> 2];
    out[o + 7 * K] += leafAt[a7 >> 2];
  }
}

/** The record the row with keys from `base` moves to from record n (n itself for a leaf). */
function step(nodes: Int32Array, keys: Uint8Array, base: number, n: number): number {
  return nodes[n + 2 - ((nodes[n + 3] >>> keys[base + nodes[n]]) & 1)];
}

/** Row-by-row walk of the model as stored, for a model too wide to compile (see flat.ts). */
function walkPlain(model: GbdtModel, data: Float32Array, numRows: number, T: number, out: Float64Array) {
  const K = model.numOutputs;
  const F = model.numFeatures;
  for (let t = 0; t < T; t++) {
    const tree = model.trees[t];
    const sets = tree.leftCategories.map((c) => new Set(c));
    for (let i = 0; i < numRows; i++) {
      let n = tree.left.length ? 0 : -1;
      while (n >= 0) {
        const x = data[i * F + tree.splitFeature[n]];
        const left = x !== x ? tree.defaultLeft[n] === 1 : tree.isCategorical[n] ? x === Math.floor(x) && sets[n].has(x) : x <= tree.threshold[n];
        n = left ? tree.left[n] : tree.right[n];
      }
      out[i * K + (t % K)] += tree.leafValue[~n];
    }
  }
}

/**
 * Predictions: regression values [numRows]; binary probability of classes[1] [numRows];
 * multiclass probabilities row-major [numRows x numClasses].
 */
export function predict(model: GbdtModel, data: Float32Array, numRows: number): Float64Array {
  return transformScores(model.objective, predictRaw(model, data, numRows), model.numOutputs);
}
