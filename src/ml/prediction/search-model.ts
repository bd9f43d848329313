/**
 * A prediction model found by the model search (./search): the prepared rows (training then
 * validation) become the search's rows, the search runs trial after trial, and the blend it
 * serves is scored out of fold. The other path, one model with the request's parameters, is
 * ./model's boostPredictionSteps.
 */
import type { Task } from "../label";
import { evaluationMetrics, type PredictionModelResult, type PreparedPrediction, type TrainPredictionOptions } from "./model";
import { predictionParams } from "./params";
import { foldPlan } from "./search/folds";
import { searchPrediction } from "./search/search";
import { searchSpace } from "./search/space";
import type { SearchRows } from "./search/trial";

/** One step of the search: a boosting round of a trial (for progress and cancel checks), or a trial done. */
export interface SearchStep {
  phase: "search";
  /** 1-based number of the trial running or done. */
  trial: number;
  maxTrials: number;
  /** Set when the trial is done: the best loss so far. */
  bestLoss: number | null;
}

/**
 * Whether a request's model is searched: unless `search` is "off", there are rows to score
 * trials on, and the request leaves some parameter free.
 */
export function searchApplies(prepared: PreparedPrediction, opts: TrainPredictionOptions): boolean {
  const p = predictionParams(opts.params);
  return p.search !== "off" && prepared.val.length > 0 && searchSpace(opts.params ?? {}).keys.length > 0;
}

export function* searchPredictionSteps(
  prepared: PreparedPrediction,
  opts: TrainPredictionOptions,
): Generator<SearchStep, PredictionModelResult, void> {
  const p = predictionParams(opts.params);
  const { label, train, val } = prepared;
  const F = prepared.bins.length;
  const binned = new Uint8Array((train.length + val.length) * F);
  binned.set(prepared.binned.trainBins, 0);
  binned.set(prepared.binned.valBins, train.length * F);
  const rows = new Int32Array(train.length + val.length);
  rows.set(train, 0);
  rows.set(val, train.length);
  const data: SearchRows = {
    rows,
    binned,
    bins: prepared.bins,
    featureNames: prepared.featurizer.features.map((f) => f.name),
    label,
  };
  const n = data.rows.length;
  // an explicit split is the caller's holdout: trials are scored on it, not cross-validated
  const plan = foldPlan(n, train.length, classesOf(label.task, label.y, data.rows), p.seed, prepared.method !== "explicit");
  const search = searchPrediction(data, plan, {
    params: opts.params ?? {},
    maxTrials: p.max_trials,
    timeBudgetMs: p.time_budget_s * 1000,
    now: opts.now ?? (() => performance.now()),
    seed: p.seed,
  });
  let trial = 1;
  for (;;) {
    const r = search.next();
    if (r.done) {
      const s = r.value;
      const y = Float64Array.from(s.evalPositions, (pos) => label.y[data.rows[pos]]);
      const cv = s.method === "cross_validation";
      return {
        model: s.model,
        featurizer: prepared.featurizer,
        representation: prepared.representation,
        task: label.task,
        classes: label.classes,
        metrics: evaluationMetrics(s.model, Float64Array.from(s.evalRaw), y),
        validation: {
          method: cv ? "cross_validation" : prepared.method,
          trainRows: cv ? n : train.length,
          valRows: s.evalPositions.length,
          droppedRows: prepared.droppedRows,
          metricsOn: "validation",
        },
        history: [],
        stopReason: s.stopReason === "time_budget" ? "time_budget" : s.bestStopReason,
        rounds: s.rounds,
        search: {
          method: s.method,
          instances: 1,
          trials: s.trials,
          best: s.trials[s.best].trial,
          ensemble: s.ensemble,
          stopReason: s.stopReason,
          roundsRun: s.roundsRun,
        },
      };
    }
    const e = r.value;
    if (e.kind === "trial") {
      yield { phase: "search", trial: e.record.trial + 1, maxTrials: p.max_trials, bestLoss: e.bestLoss };
      trial = e.record.trial + 2;
    } else yield { phase: "search", trial, maxTrials: p.max_trials, bestLoss: null };
  }
}

function classesOf(task: Task, y: Float64Array, rows: Int32Array): Float64Array | null {
  return task === "classification" ? Float64Array.from(rows, (r) => y[r]) : null;
}
