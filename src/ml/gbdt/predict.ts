/**
 * Prediction on the featurized float32 matrix with exactly the model.ts semantics:
 * NaN follows defaultLeft; numeric: x <= threshold goes left; categorical: the code goes left
 * when it is in leftCategories, any other value (unseen, negative, fractional) goes right.
 *
 * Speed (2-3x a plain row-by-row walk): the model is compiled once (./flat) so that every split
 * is one branch-free bit test on a byte of the row's key vector; rows are predicted in blocks,
 * tree-major inside a block (the block's keys and a tree's records stay in cache), eight rows
 * walking a tree in lockstep so that their dependent loads overlap. Each row's scores are still
 * summed in tree order starting from baseScore, so the doubles equal a plain traversal's
 * (test/ml/gbdt-predict-flat.test.ts).
 */
import * as flat from "./flat";
import * as leafTable from "./leaf-table";
import type { GbdtModel } from "./model";
import { transformScores } from "./objective";

// Local copies: an imported binding can be a getter under some loaders (tsx, vitest), far too
// slow in a loop.
const orderKey = flat.orderKey;
const RANKS = flat.RANKS_PER_WORD;
const CODES = flat.CODES_PER_WORD;
const scoreTable = leafTable.scoreTable;

/** Key bytes per block: in L1 next to the records of the current tree. */
const BLOCK_BYTES = 16384;

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
  const keys = new Uint8Array(block * m.stride);
  const bits = new Int32Array(data.buffer, data.byteOffset, data.length);
  const tabled = m.tables.start;
  for (let r0 = 0; r0 < numRows; r0 += block) {
    const r1 = Math.min(numRows, r0 + block);
    rowKeys(m, data, bits, F, r0, r1, keys);
    const groups = r1 - ((r1 - r0) & 7);
    for (let t = 0, k = 0; t < T; t++, k = k + 1 === K ? 0 : k + 1) {
      if (tabled[t] >= 0) {
        scoreTable(m, t, keys, r1 - r0, out, r0 * K + k, K);
        continue;
      }
      if (groups > r0) scoreTree(m, t, keys, r0, groups, out, K, k);
      for (let i = groups; i < r1; i++) {
        let a = m.roots[t];
        while (a < m.leafStart[t]) a = step(m.nodes, keys, (i - r0) * m.stride, a);
        out[i * K + k] += m.leafAt[a >> 2];
      }
    }
  }
  return out;
}

/** The key vectors (see ./flat) of rows r0 <= i < r1, into keys from 0. */
function rowKeys(m: flat.FlatModel, data: Float32Array, bits: Int32Array, F: number, r0: number, r1: number, keys: Uint8Array) {
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
function scoreTree(m: flat.FlatModel, t: number, keys: Uint8Array, r0: number, r1: number, out: Float64Array, K: number, k: number) {
  const { nodes, leafAt, stride: s } = m;
  const root = m.roots[t];
  const leaves = m.leafStart[t];
  if (root >= leaves) {
    const v = leafAt[root >> 2];
    for (let i = r0; i < r1; i++) out[i * K + k] += v;
    return;
  }
  for (let i = r0; i < r1; i += 8) {
    const b = (i - r0) * s;
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
    const o = i * K + k;
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

/**
 * The rows r1 <= i < r2 of the block from r0 (fewer than 8), one by one: four trees at a time walk
 * the row in lockstep (the overlap again, across trees), their values added in tree order.
 */
function walkRows(m: flat.FlatModel, T: number, keys: Uint8Array, r0: number, r1: number, r2: number, out: Float64Array, K: number) {
  const { nodes, leafAt, stride, roots, leafStart } = m;
  for (let i = r1; i < r2; i++) {
    const b = (i - r0) * stride;
    let t = 0;
    let k = 0;
    const next = () => (k = k + 1 === K ? 0 : k + 1);
    for (; t + 4 <= T; t += 4) {
      const [l0, l1, l2, l3] = [leafStart[t], leafStart[t + 1], leafStart[t + 2], leafStart[t + 3]];
      let [a0, a1, a2, a3] = [roots[t], roots[t + 1], roots[t + 2], roots[t + 3]];
      while ((+(a0 < l0) | +(a1 < l1) | +(a2 < l2) | +(a3 < l3)) !== 0) {
        a0 = step(nodes, keys, b, a0);
        a1 = step(nodes, keys, b, a1);
        a2 = step(nodes, keys, b, a2);
        a3 = step(nodes, keys, b, a3);
      }
      out[i * K + k] += leafAt[a0 >> 2];
      out[i * K + next()] += leafAt[a1 >> 2];
      out[i * K + next()] += leafAt[a2 >> 2];
      out[i * K + next()] += leafAt[a3 >> 2];
      next();
    }
    for (; t < T; t++, next()) {
      let a = roots[t];
      while (a < leafStart[t]) a = step(nodes, keys, b, a);
      out[i * K + k] += leafAt[a >> 2];
    }
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
