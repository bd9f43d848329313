/**
 * Rows of a featurized matrix that every split of a model sends the same way, grouped: such rows
 * reach the same leaf in every tree, so any computation that is a function of the leaves reached
 * (the model's ONNX graph: the leaf sums, then sigmoid or softmax per row) answers them alike,
 * and only one row of each group needs computing. The groups are those of the predictor's key
 * vectors (./flat, ./distinct-keys): equal vectors mean equal outcomes of every `x <= t` on the
 * float32 value against the double threshold, of every categorical membership and of every NaN
 * default, which is exactly how the exported graph decides (../onnx/tree-ensemble: BRANCH_LEQ on
 * the same doubles, BRANCH_MEMBER on the same codes, missing_value_tracks_true = defaultLeft).
 */
import { compactDistinct } from "./distinct-keys";
import { flatten, isCode } from "./flat";
import type { GbdtModel } from "./model";
import { rowKeys } from "./predict";

export interface AlikeRows {
  /** Number of groups. */
  count: number;
  /** Per group, its first row (groups are numbered in order of first occurrence). */
  first: Int32Array;
  /** Per row, its group. */
  of: Int32Array;
}

/** Key bytes grouped at once at most: beyond, grouping is not worth the memory. */
const MAX_KEY_BYTES = 64 * 1024 * 1024;

/**
 * The groups of rows [0, numRows) of row-major `data`; null when the model's splits cannot be
 * grouped exactly (see `graphDecidesAsKeys`) or its key vectors would be too wide for the rows.
 */
export function alikeRows(model: GbdtModel, data: Float32Array, numRows: number): AlikeRows | null {
  const m = flatten(model);
  if (!m || !graphDecidesAsKeys(model) || numRows * m.stride > MAX_KEY_BYTES) return null;
  const F = model.numFeatures;
  if (data.length < numRows * F) throw new Error(`alikeRows: expected ${numRows * F} values, got ${data.length}`);
  const keys = new Uint8Array(Math.max(1, numRows * m.stride));
  rowKeys(m, data, new Int32Array(data.buffer, data.byteOffset, data.length), F, 0, numRows, keys);
  const of = new Int32Array(numRows);
  const count = compactDistinct(keys, numRows, m.stride, of);
  const first = new Int32Array(count);
  for (let i = 0, next = 0; i < numRows; i++) if (of[i] === next) first[next++] = i;
  return { count, first, of };
}

const cache = new WeakMap<GbdtModel, boolean>();

/**
 * Whether the exported graph decides every split as the key vectors do. Two categorical splits
 * would not: a left set holding a value that is not a code (./flat leaves it out of the keys, the
 * graph's BRANCH_MEMBER tests it), and an empty left set (exported as `x <= -Infinity`, which
 * sends -Infinity left while the keys put it with every other non-code value). Trained models
 * hold neither (their sets are dictionary codes, and a split sends some codes left); a model that
 * does is not grouped. Nor is one with a threshold that is not a finite number: gbdt.json, where
 * the answer reads the model from, writes ±Infinity and NaN as null, which the graph does not.
 */
function graphDecidesAsKeys(model: GbdtModel): boolean {
  const hit = cache.get(model);
  if (hit !== undefined) return hit;
  const ok = model.trees.every((t) =>
    t.isCategorical.every((cat, j) => (cat ? t.leftCategories[j].length > 0 && t.leftCategories[j].every(isCode) : Number.isFinite(t.threshold[j]))),
  );
  cache.set(model, ok);
  return ok;
}
