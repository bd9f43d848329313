/**
 * Prediction on the featurized float32 matrix with exactly the model.ts semantics:
 * NaN follows defaultLeft; numeric: x <= threshold goes left (x and threshold are float32
 * values, so the double comparison equals the float32 one); categorical: the code goes left
 * when it is in leftCategories, any other value (unseen, negative, fractional) goes right.
 */
import type { GbdtModel } from "./model";
import { transformScores } from "./objective";

interface Compiled {
  treeRoot: Int32Array; // node offset of each tree, -1 - leafOffset for a single-leaf tree
  leafBase: Int32Array; // leaf offset of each tree
  feat: Int32Array;
  thr: Float64Array;
  isCat: Uint8Array;
  defLeft: Uint8Array;
  left: Int32Array; // global node index, or -1 - global leaf index
  right: Int32Array;
  catOff: Int32Array;
  catLen: Int32Array;
  catSet: Uint8Array;
  leafValue: Float64Array;
}

const cache = new WeakMap<GbdtModel, Compiled>();

function compile(model: GbdtModel): Compiled {
  const hit = cache.get(model);
  if (hit) return hit;
  let nodes = 0;
  let leaves = 0;
  let cats = 0;
  for (const t of model.trees) {
    nodes += t.left.length;
    leaves += t.leafValue.length;
    for (const lc of t.leftCategories) if (lc.length) cats += Math.max(...lc) + 1;
  }
  const c: Compiled = {
    treeRoot: new Int32Array(model.trees.length),
    leafBase: new Int32Array(model.trees.length),
    feat: new Int32Array(nodes),
    thr: new Float64Array(nodes),
    isCat: new Uint8Array(nodes),
    defLeft: new Uint8Array(nodes),
    left: new Int32Array(nodes),
    right: new Int32Array(nodes),
    catOff: new Int32Array(nodes),
    catLen: new Int32Array(nodes),
    catSet: new Uint8Array(cats),
    leafValue: new Float64Array(leaves),
  };
  let nodeOff = 0;
  let leafOff = 0;
  let catOff = 0;
  model.trees.forEach((t, ti) => {
    c.treeRoot[ti] = t.left.length > 0 ? nodeOff : -1 - leafOff;
    c.leafBase[ti] = leafOff;
    for (let j = 0; j < t.left.length; j++) {
      const g = nodeOff + j;
      c.feat[g] = t.splitFeature[j];
      c.thr[g] = t.threshold[j];
      c.isCat[g] = t.isCategorical[j] ? 1 : 0;
      c.defLeft[g] = t.defaultLeft[j] ? 1 : 0;
      c.left[g] = t.left[j] >= 0 ? nodeOff + t.left[j] : -1 - (leafOff + ~t.left[j]);
      c.right[g] = t.right[j] >= 0 ? nodeOff + t.right[j] : -1 - (leafOff + ~t.right[j]);
      const lc = t.isCategorical[j] ? t.leftCategories[j] : [];
      c.catOff[g] = catOff;
      if (lc.length) {
        const len = Math.max(...lc) + 1;
        c.catLen[g] = len;
        for (const code of lc) c.catSet[catOff + code] = 1;
        catOff += len;
      }
    }
    for (let j = 0; j < t.leafValue.length; j++) c.leafValue[leafOff + j] = t.leafValue[j];
    nodeOff += t.left.length;
    leafOff += t.leafValue.length;
  });
  cache.set(model, c);
  return c;
}

/** Raw scores, row-major [numRows x numOutputs]. `data` is row-major [numRows x numFeatures]. */
export function predictRaw(model: GbdtModel, data: Float32Array, numRows: number, numTrees = model.trees.length): Float64Array {
  const K = model.numOutputs;
  const F = model.numFeatures;
  if (data.length < numRows * F) throw new Error(`predictRaw: expected ${numRows * F} values, got ${data.length}`);
  const c = compile(model);
  const out = new Float64Array(numRows * K);
  for (let i = 0; i < numRows; i++) for (let k = 0; k < K; k++) out[i * K + k] = model.baseScore[k];
  const { feat, thr, isCat, defLeft, left, right, catOff, catLen, catSet, leafValue } = c;
  const T = Math.min(numTrees, model.trees.length);
  for (let t = 0; t < T; t++) {
    const k = t % K;
    const root = c.treeRoot[t];
    if (root < 0) {
      const v = leafValue[-1 - root];
      for (let i = 0; i < numRows; i++) out[i * K + k] += v;
      continue;
    }
    for (let i = 0; i < numRows; i++) {
      const base = i * F;
      let node = root;
      while (node >= 0) {
        const x = data[base + feat[node]];
        let goLeft: boolean;
        if (x !== x) goLeft = defLeft[node] === 1;
        else if (isCat[node] === 1) goLeft = x >= 0 && x < catLen[node] && x === Math.floor(x) && catSet[catOff[node] + x] === 1;
        else goLeft = x <= thr[node];
        node = goLeft ? left[node] : right[node];
      }
      out[i * K + k] += leafValue[-1 - node];
    }
  }
  return out;
}

/**
 * Predictions: regression values [numRows]; binary probability of classes[1] [numRows];
 * multiclass probabilities row-major [numRows x numClasses].
 */
export function predict(model: GbdtModel, data: Float32Array, numRows: number): Float64Array {
  return transformScores(model.objective, predictRaw(model, data, numRows), model.numOutputs);
}
