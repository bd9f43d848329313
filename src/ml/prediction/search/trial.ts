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
import type { Fold, FoldPlan } from "./folds";

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
function* fitFold(
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

/** What a trial is to do: the parameters, its time, and the score past which its first fold ends it. */
export interface TrialSpec {
  trial: number;
  params: PredictionParams;
  /** Milliseconds the trial may take from its start (the search's time left when it was sent). */
  budgetMs: number;
  /**
   * Set for the first trial, which must finish whatever the budget (it is the model served if
   * nothing else is): each fold gets at least this long, and running out of time does not end it.
   */
  floorMs: number | null;
  /** The median first-fold loss of the trials before it: a first fold worse than this ends the trial (null: no pruning yet). */
  pruneAbove: number | null;
}

/** How a trial ended: every fold run, stopped by the median rule, out of time, or lost (its instance died, twice). */
export type TrialStatus = "completed" | "pruned" | "out_of_time" | "failed";

export interface TrialOutcome {
  trial: number;
  /** The folds it ran, in the plan's order. */
  fits: FoldFit[];
  status: TrialStatus;
  seconds: number;
  /** Why a failed trial failed. */
  message?: string;
  /** The instance that ran it, when not this one. */
  instance?: string;
}

/**
 * Runs a trial fold after fold, one boosting round per step: the unit of work a search schedules,
 * here or on another trainer instance (its inputs and outcome are plain data: ./bytes).
 */
export function* runTrial(
  data: SearchRows,
  plan: FoldPlan,
  spec: TrialSpec,
  now: () => number,
  parallel?: ParallelExecutor,
): Generator<void, TrialOutcome, void> {
  const t0 = now();
  const deadline = t0 + spec.budgetMs;
  const fits: FoldFit[] = [];
  let status: TrialStatus = "completed";
  for (let f = 0; f < plan.folds.length; f++) {
    const budget = spec.floorMs === null ? deadline - now() : Math.max(deadline - now(), spec.floorMs);
    if (budget <= 0) {
      status = "out_of_time";
      break;
    }
    const fit = yield* fitFold(data, plan.folds[f], spec.params, budget, now, parallel);
    fits.push(fit);
    if (fit.stopReason === "time_budget" && spec.floorMs === null) {
      status = "out_of_time";
      break;
    }
    if (f === 0 && spec.pruneAbove !== null && plan.folds.length > 1 && fit.loss > spec.pruneAbove) {
      status = "pruned";
      break;
    }
  }
  return { trial: spec.trial, fits, status, seconds: (now() - t0) / 1000 };
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
