/**
 * One fit of a model search: a configuration boosted on one fold's fitting rows, early-stopped and
 * scored on its scoring rows. The unit of work a search schedules (and could send elsewhere: its
 * inputs are the search's rows, a fold and parameters, its result plain numbers and a model).
 */
import type { FeatureBins } from "../../gbdt/bins";
import type { GbdtModel } from "../../gbdt/model";
import { type StopReason, trainGbdtBinnedSteps } from "../../gbdt/train";
import type { Label } from "../../label";
import type { ParallelExecutor } from "../../parallel";
import { gbdtParams, type PredictionParams } from "../params";
import type { Fold } from "./folds";

/**
 * The rows a search fits on. Cross-validation: each position's frame row and the positions'
 * bins (row-major, positions × features), from which folds gather theirs. Holdout: no positions
 * (the fold lists frame rows) and the fitting and scoring rows' own bin matrices (on a large
 * table a copy of the rows or bins would cost as much again).
 */
export interface SearchRows {
  rows: Int32Array | null;
  binned: Uint8Array | { fit: Uint8Array; score: Uint8Array };
  bins: FeatureBins[];
  featureNames: string[];
  label: Label;
}

export interface FoldFit {
  model: GbdtModel;
  /** Raw scores of the fold's scoring rows at the kept round (scoring rows × outputs). */
  raw: Float64Array;
  /** The objective's loss on the scoring rows at the kept round. */
  loss: number;
  rounds: number;
  stopReason: StopReason;
}

/**
 * Fits `params` on `fold`, one boosting round per step. `budgetMs` caps the boosting (the search's
 * time left); `now` is its clock.
 */
export function* fitFold(
  data: SearchRows,
  fold: Fold,
  params: PredictionParams,
  budgetMs: number,
  now: () => number,
  parallel?: ParallelExecutor,
): Generator<void, FoldFit, void> {
  const F = data.bins.length;
  const K = data.label.classes ? data.label.classes.length : 1;
  const fitRows = data.rows ? gather(data.rows, fold.fit) : fold.fit;
  const scoreRows = data.rows ? gather(data.rows, fold.score) : fold.score;
  const boosting = trainGbdtBinnedSteps({
    numFeatures: F,
    featureNames: data.featureNames,
    label: data.label.y,
    trainRows: fitRows,
    valRows: scoreRows,
    bins: data.bins,
    trainBins: data.binned instanceof Uint8Array ? gatherRows(data.binned, F, fold.fit) : data.binned.fit,
    valBins: data.binned instanceof Uint8Array ? gatherRows(data.binned, F, fold.score) : data.binned.score,
    classes: data.label.classes ?? undefined,
    params: gbdtParams(params, fitRows.length, data.label.task, K),
    timeBudgetMs: Math.max(1, budgetMs),
    now,
    parallel,
  });
  for (;;) {
    const r = boosting.next();
    if (r.done) {
      const res = r.value;
      if (!res.valRaw) throw new Error("a search fold has no scoring rows");
      const best = res.history[res.rounds - 1] ?? res.history[res.history.length - 1];
      return { model: res.model, raw: res.valRaw, loss: best?.valLoss ?? Number.POSITIVE_INFINITY, rounds: res.rounds, stopReason: res.stopReason };
    }
    yield;
  }
}

function gather(values: Int32Array, positions: Int32Array): Int32Array {
  return Int32Array.from(positions, (i) => values[i]);
}

function gatherRows(binned: Uint8Array, F: number, positions: Int32Array): Uint8Array {
  const out = new Uint8Array(positions.length * F);
  positions.forEach((p, i) => {
    out.set(binned.subarray(p * F, (p + 1) * F), i * F);
  });
  return out;
}
