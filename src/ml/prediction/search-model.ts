/**
 * A prediction model found by the model search (./search): the prepared rows (training then
 * validation) become the search's rows, the search runs trial after trial, and the blend it
 * serves is scored out of fold. The other path, one model with the request's parameters, is
 * ./model's boostPredictionSteps.
 */
import { SEARCH_AUTO_MAX_ROWS } from "../../core/limits";
import { evaluationMetrics, type PredictionModelResult, type PreparedPrediction, type TrainPredictionOptions } from "./model";
import { predictionParams } from "./params";
import { searchPredictionFanOut } from "./search/fan-out";
import { foldPlan } from "./search/folds";
import { searchPrediction } from "./search/search";
import { searchSpace } from "./search/space";
import type { SearchRows } from "./search/trial";

/**
 * One step of the search: a boosting round of a trial run here (for progress and cancel checks),
 * or a trial done; or, when the trials run on other instances, a wait for them (the caller awaits
 * `until` before asking for the next step).
 */
export type SearchStep =
  | {
      phase: "search";
      /** 1-based number of the trial running or done. */
      trial: number;
      maxTrials: number;
      /** Set when the trial is done: the best loss so far. */
      bestLoss: number | null;
    }
  | { phase: "wait"; until: Promise<unknown> };

/**
 * Whether a request's model is searched: `search` is "on", or "auto" on a table the default
 * searches (autoSearchSkipped); there are rows to score trials on; and the request leaves some
 * parameter free.
 */
export function searchApplies(prepared: PreparedPrediction, opts: TrainPredictionOptions): boolean {
  const p = predictionParams(opts.params);
  if (p.search === "off" || autoSearchSkipped(p.search, labelledRows(prepared)) !== null) return false;
  return prepared.val.length > 0 && searchSpace(opts.params ?? {}).keys.length > 0;
}

/**
 * Why the default ("auto") trains one model instead of searching, for the job output; null when
 * it searches, or when the request chose ("on", "off").
 */
export function autoSearchSkipped(search: "auto" | "on" | "off", rows: number, maxRows = SEARCH_AUTO_MAX_ROWS): string | null {
  if (search !== "auto" || rows <= maxRows) return null;
  return `${rows} labelled rows is above the ${maxRows} up to which search "auto" searches, so one model was trained; params.search "on" searches anyway`;
}

/** The rows a search would score trials on: training and validation. */
export const labelledRows = (prepared: PreparedPrediction): number => prepared.train.length + prepared.val.length;

export function* searchPredictionSteps(
  prepared: PreparedPrediction,
  opts: TrainPredictionOptions,
): Generator<SearchStep, PredictionModelResult, void> {
  const p = predictionParams(opts.params);
  const { label, train, val } = prepared;
  const n = train.length + val.length;
  // an explicit split is the caller's holdout: trials are scored on it, not cross-validated
  const plan = foldPlan(train, val, classesOf(label, train, val), p.seed, prepared.method !== "explicit");
  const cv = plan.method === "cross_validation";
  const data: SearchRows = {
    rows: cv ? concat(train, val) : null,
    binned: cv ? concat(prepared.binned.trainBins, prepared.binned.valBins) : { fit: prepared.binned.trainBins, score: prepared.binned.valBins },
    bins: prepared.bins,
    featureNames: prepared.featurizer.features.map((f) => f.name),
    label,
  };
  const searchOpts = {
    params: opts.params ?? {},
    maxTrials: p.max_trials,
    timeBudgetMs: p.time_budget_s * 1000,
    now: opts.now ?? (() => performance.now()),
    seed: p.seed,
    parallel: opts.parallel,
  };
  // several instances: trials run there, several at once; else one after the other, here
  const pool = opts.trialPool && opts.trialPool.instances > 1 ? opts.trialPool : null;
  const search = pool ? searchPredictionFanOut(data, plan, searchOpts, pool) : searchPrediction(data, plan, searchOpts);
  let trial = 1;
  for (;;) {
    const r = search.next();
    if (r.done) {
      const s = r.value;
      return {
        model: s.model,
        featurizer: prepared.featurizer,
        representation: prepared.representation,
        task: label.task,
        classes: label.classes,
        metrics: evaluationMetrics(s.model, Float64Array.from(s.evalRaw), s.evalLabels),
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
          instances: s.instances,
          trials: s.trials,
          best: s.trials[s.best].trial,
          ensemble: s.ensemble,
          stopReason: s.stopReason,
          roundsRun: s.roundsRun,
        },
      };
    }
    const e = r.value;
    if (e.kind === "wait") yield { phase: "wait", until: e.until };
    else if (e.kind === "trial") {
      yield { phase: "search", trial: e.record.trial + 1, maxTrials: p.max_trials, bestLoss: e.bestLoss };
      trial = e.record.trial + 2;
    } else yield { phase: "search", trial, maxTrials: p.max_trials, bestLoss: null };
  }
}

/** Two arrays end to end (the training then validation rows, or their bins: cross-validation, small tables only). */
function concat<T extends Int32Array | Uint8Array>(a: T, b: T): T {
  const out = new (a.constructor as new (n: number) => T)(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** The class of each position (training rows then validation rows), for stratified folds. */
function classesOf(label: PreparedPrediction["label"], train: Int32Array, val: Int32Array): Float64Array | null {
  if (label.task !== "classification") return null;
  return Float64Array.from({ length: train.length + val.length }, (_, i) => label.y[i < train.length ? train[i] : val[i - train.length]]);
}
