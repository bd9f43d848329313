/**
 * A prediction model's training rows: the train/validation split and the rows' bins. Built for
 * large tables: typed arrays only, and the features are binned one at a time straight from the
 * frame (one float column at a time), so the float feature matrix of the whole table never
 * exists; the GBDT trains on the Uint8 bins (../gbdt/train, trainGbdtBinnedSteps). Only the
 * prediction model (./model) uses it.
 */

import { COLUMN_DONE, type ColumnDone } from "../column-done";
import { type FeaturizerSpec, featureFiller } from "../featurize";
import type { Frame } from "../frame";
import { binColumn, type FeatureBins } from "../gbdt/bins";
import { Rng } from "../random";

/** Row-major Uint8 bins [rows x features] of the training and validation rows (in their order). */
export interface BinnedRows {
  trainBins: Uint8Array;
  valBins: Uint8Array;
}

/**
 * Bins the features of `spec` (bins[j] is feature j's) for the rows `train` and `val` of `frame`,
 * with a `column` yield after each feature (seconds each on tens of millions of rows).
 */
export function* binRowsSteps(
  spec: FeaturizerSpec,
  bins: FeatureBins[],
  frame: Frame,
  train: Int32Array,
  val: Int32Array,
): Generator<ColumnDone, BinnedRows, void> {
  const F = spec.features.length;
  const trainBins = new Uint8Array(train.length * F);
  const valBins = new Uint8Array(val.length * F);
  const column = new Float32Array(frame.rowCount);
  const fill = featureFiller(spec, frame);
  for (let j = 0; j < F; j++) {
    fill(j, column);
    binColumn(column, bins[j], train, trainBins, F, j);
    binColumn(column, bins[j], val, valBins, F, j);
    yield COLUMN_DONE;
  }
  return { trainBins, valBins };
}

/**
 * Deterministic split; stratified by class when `cls` is given (each class keeps its share).
 * Typed arrays throughout: on tens of millions of rows, arrays of numbers would cost several times
 * the rows' own size.
 */
export function splitRows(rows: Int32Array, cls: Float64Array | null, fraction: number, seed: number): { train: Int32Array; val: Int32Array } {
  const rng = new Rng(seed ^ 0x5eed);
  // regression: one group; classification: one per class, in class order
  const keyOf = (r: number) => (cls ? cls[r] : 0);
  const sizes = new Map<number, number>();
  for (const r of rows) sizes.set(keyOf(r), (sizes.get(keyOf(r)) ?? 0) + 1);
  const keys = [...sizes.keys()].sort((a, b) => a - b);
  const start = new Map<number, number>();
  let at = 0;
  for (const k of keys) {
    start.set(k, at);
    at += sizes.get(k)!;
  }
  // positions (in `rows`) grouped by class, each group in row order
  const grouped = new Int32Array(rows.length);
  const fill = new Map(start);
  for (let i = 0; i < rows.length; i++) {
    const k = keyOf(rows[i]);
    const p = fill.get(k)!;
    grouped[p] = i;
    fill.set(k, p + 1);
  }
  const isVal = new Uint8Array(rows.length);
  let nVal = 0;
  for (const k of keys) {
    const g = grouped.subarray(start.get(k)!, start.get(k)! + sizes.get(k)!);
    rng.shuffle(g);
    // at least one validation row per class when the class has >= 2 rows
    const nv = g.length >= 2 ? Math.max(1, Math.round(g.length * fraction)) : 0;
    for (let i = 0; i < nv; i++) isVal[g[i]] = 1;
    nVal += nv;
  }
  const train = new Int32Array(rows.length - nVal);
  const val = new Int32Array(nVal);
  for (let i = 0, t = 0, v = 0; i < rows.length; i++) {
    if (isVal[i]) val[v++] = rows[i];
    else train[t++] = rows[i];
  }
  return { train, val };
}
