/**
 * The model search of a prediction model: trials of boosting parameters, each scored by
 * cross-validation or a holdout (./folds), proposed by a Parzen sampler (./sampler) after a first
 * trial of today's defaults, within a time budget; a trial whose first fold already scores worse
 * than the median of the trials before it stops there (successive halving over folds). The best
 * trials are then blended by greedy ensemble selection (./ensemble) when that scores better out of
 * fold, and served as one tree model: fold models averaged, members weighted (../../gbdt/blend).
 */
import { blendGbdtModels } from "../../gbdt/blend";
import type { GbdtModel } from "../../gbdt/model";
import type { StopReason } from "../../gbdt/train";
import type { ParallelExecutor } from "../../parallel";
import { gbdtParams, type PredictionParams } from "../params";
import { selectEnsemble } from "./ensemble";
import type { FoldPlan } from "./folds";
import { ParzenSampler } from "./sampler";
import { type SearchConfig, searchSpace } from "./space";
import { type FoldFit, fitFold, type SearchRows } from "./trial";

/** The search ends when this many trials in a row did not improve the best score. */
const PATIENCE = 15;
/** Trials after which the median rule may stop a trial at its first fold. */
const MIN_TRIALS_BEFORE_PRUNING = 4;
/** The best trials offered to the ensemble. */
const ENSEMBLE_CANDIDATES = 8;

export interface SearchOptions {
  /** The request's parameters: those it sets stay fixed. */
  params: PredictionParams;
  maxTrials: number;
  timeBudgetMs: number;
  now: () => number;
  seed: number;
  /** Threads to boost on (see ../../gbdt/train). */
  parallel?: ParallelExecutor;
}

type TrialStatus = "completed" | "pruned" | "out_of_time";

interface TrialRecord {
  trial: number;
  /** The boosting parameters the trial used (defaults included). */
  params: Record<string, number>;
  /** The objective's loss, averaged over the folds it ran (lower is better). */
  loss: number;
  folds: number;
  rounds: number;
  seconds: number;
  status: TrialStatus;
}

/** Why the search ended: every trial run, no progress for a while, or the budget. */
type SearchStopReason = "max_trials" | "converged" | "time_budget";

export interface SearchResult {
  method: FoldPlan["method"];
  trials: TrialRecord[];
  /** Index in `trials` of the best completed trial. */
  best: number;
  /** The blend served, when more than one trial is in it. */
  ensemble: { members: { trial: number; weight: number }[]; loss: number } | null;
  model: GbdtModel;
  /** Positions (in the search's rows) the out-of-fold scores are for, and the served blend's raw scores there. */
  evalPositions: Int32Array;
  evalRaw: Float64Array;
  /** The labels of the evaluation positions. */
  evalLabels: Float64Array;
  stopReason: SearchStopReason;
  /** Boosting rounds of the best trial's (first) model. */
  rounds: number;
  roundsRun: number;
  bestStopReason: StopReason;
}

/** What the job's output says of the search. */
export interface SearchSummary {
  method: "cross_validation" | "holdout";
  /** Trainer instances that ran trials. */
  instances: number;
  trials: TrialRecord[];
  /** The best single trial's number. */
  best: number;
  ensemble: { members: { trial: number; weight: number }[]; loss: number } | null;
  stopReason: SearchStopReason;
  /** Boosting rounds run over all trials and folds. */
  roundsRun: number;
}

export type SearchEvent = { kind: "round" } | { kind: "trial"; record: TrialRecord; bestLoss: number };

interface Candidate {
  trial: number;
  loss: number;
  fits: FoldFit[];
}

export function* searchPrediction(data: SearchRows, plan: FoldPlan, opts: SearchOptions): Generator<SearchEvent, SearchResult, void> {
  const space = searchSpace(opts.params);
  const sampler = new ParzenSampler(space.keys.length, opts.seed);
  const start = opts.now();
  const left = () => opts.timeBudgetMs - (opts.now() - start);
  const classes = data.label.classes ? data.label.classes.length : 1;
  // raw outputs per row: one for regression and binary classification, one per class else
  const K = classes > 2 ? classes : 1;
  const trials: TrialRecord[] = [];
  const firstFoldLosses: number[] = [];
  let candidates: Candidate[] = [];
  let roundsRun = 0;
  let stopReason: SearchStopReason = "max_trials";
  let sinceBest = 0;

  for (let t = 0; t < opts.maxTrials; t++) {
    const done = candidates.length > 0;
    const meanSeconds = trials.length ? trials.reduce((s, r) => s + r.seconds, 0) / trials.length : 0;
    if (done && left() < meanSeconds * 1000) {
      stopReason = "time_budget";
      break;
    }
    if (done && sinceBest >= PATIENCE) {
      stopReason = "converged";
      break;
    }
    const unit = t === 0 ? null : sampler.propose();
    const config: SearchConfig = unit ? space.config(unit) : {};
    const params: PredictionParams = { ...opts.params, ...config, seed: opts.seed + t };
    const t0 = opts.now();
    const fits: FoldFit[] = [];
    let status: TrialStatus = "completed";
    for (let f = 0; f < plan.folds.length; f++) {
      // the first trial must finish whatever the budget: it is the model served if nothing else is
      const budget = t === 0 ? Math.max(left(), opts.timeBudgetMs / plan.folds.length) : left();
      if (budget <= 0) {
        status = "out_of_time";
        break;
      }
      const fit = yield* roundsOf(fitFold(data, plan.folds[f], params, budget, opts.now, opts.parallel));
      roundsRun += fit.model.trees.length / K;
      fits.push(fit);
      if (fit.stopReason === "time_budget" && t > 0) {
        status = "out_of_time";
        break;
      }
      if (f === 0) {
        const median = quantile(firstFoldLosses, 0.5);
        firstFoldLosses.push(fit.loss);
        if (unit) sampler.tell(unit, fit.loss);
        if (t >= MIN_TRIALS_BEFORE_PRUNING && plan.folds.length > 1 && fit.loss > median) {
          status = "pruned";
          break;
        }
      }
    }
    const loss = fits.length ? fits.reduce((s, x) => s + x.loss, 0) / fits.length : Number.POSITIVE_INFINITY;
    const record: TrialRecord = {
      trial: t,
      params: effectiveParams(params, data, plan, classes),
      loss,
      folds: fits.length,
      rounds: fits[0]?.rounds ?? 0,
      seconds: (opts.now() - t0) / 1000,
      status,
    };
    trials.push(record);
    if (status === "completed") {
      const improved = candidates.length === 0 || loss < candidates[0].loss;
      sinceBest = improved ? 0 : sinceBest + 1;
      candidates = [...candidates, { trial: t, loss, fits }].sort((a, b) => a.loss - b.loss).slice(0, ENSEMBLE_CANDIDATES);
    } else sinceBest++;
    yield { kind: "trial", record, bestLoss: candidates[0]?.loss ?? loss };
    if (status === "out_of_time") {
      stopReason = "time_budget";
      break;
    }
  }
  return finish(data, plan, trials, candidates, { stopReason, roundsRun, K });
}

function finish(
  data: SearchRows,
  plan: FoldPlan,
  trials: TrialRecord[],
  candidates: Candidate[],
  s: { stopReason: SearchStopReason; roundsRun: number; K: number },
): SearchResult {
  const evalPositions = Int32Array.from(plan.folds.flatMap((f) => Array.from(f.score)));
  const raws = candidates.map((c) => outOfFoldRaw(c, s.K));
  const rows = data.rows;
  const y = Float64Array.from(evalPositions, (p) => data.label.y[rows ? rows[p] : p]);
  const objective = candidates[0].fits[0].model.objective;
  const choice = selectEnsemble(objective, raws, y, s.K);
  const members = choice.members.map((m) => ({ candidate: candidates[m.index], weight: m.weight }));
  const model = blendGbdtModels(
    members.flatMap(({ candidate, weight }) => candidate.fits.map((fit) => ({ model: fit.model, weight: weight / candidate.fits.length }))),
  );
  const evalRaw = new Float64Array(evalPositions.length * s.K);
  for (const m of choice.members) {
    const raw = raws[m.index];
    for (let i = 0; i < evalRaw.length; i++) evalRaw[i] += m.weight * raw[i];
  }
  const best = candidates[0];
  return {
    method: plan.method,
    trials,
    best: trials.findIndex((t) => t.trial === best.trial),
    ensemble: members.length > 1 ? { members: members.map((m) => ({ trial: m.candidate.trial, weight: m.weight })), loss: choice.loss } : null,
    model,
    evalPositions,
    evalRaw,
    evalLabels: y,
    stopReason: s.stopReason,
    rounds: best.fits[0].rounds,
    roundsRun: s.roundsRun,
    bestStopReason: best.fits[0].stopReason,
  };
}

/** A candidate's raw scores on every fold's scoring rows, in the plan's order of folds. */
function outOfFoldRaw(c: Candidate, K: number): Float64Array {
  const out = new Float64Array(c.fits.reduce((n, f) => n + f.raw.length, 0));
  let at = 0;
  for (const fit of c.fits) {
    out.set(fit.raw, at);
    at += fit.raw.length;
  }
  if (out.length % K !== 0) throw new Error("out-of-fold scores do not match the outputs");
  return out;
}

/** A fold fit's steps, passed through as round events. */
function* roundsOf(fit: Generator<void, FoldFit, void>): Generator<SearchEvent, FoldFit, void> {
  for (;;) {
    const r = fit.next();
    if (r.done) return r.value;
    yield { kind: "round" };
  }
}

/** The parameters a trial boosted with, as the request names them (defaults and the rate by rows included). */
function effectiveParams(params: PredictionParams, data: SearchRows, plan: FoldPlan, classes: number): Record<string, number> {
  const g = gbdtParams(params, plan.folds[0].fit.length, data.label.task, classes);
  return {
    learning_rate: round4(g.learningRate!),
    num_leaves: g.numLeaves!,
    max_depth: g.maxDepth!,
    min_data_in_leaf: g.minDataInLeaf!,
    l2: round4(g.lambdaL2!),
    subsample: round4(g.subsample!),
    feature_fraction: round4(g.featureFraction!),
  };
}

function round4(v: number): number {
  return Math.round(v * 1e4) / 1e4;
}

function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.POSITIVE_INFINITY;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * (s.length - 1)))];
}
