/**
 * The state of a model search, whoever runs its trials: which trial comes next (the defaults
 * first, then the Parzen sampler's proposals), when the search stops (trials, patience, time),
 * what each finished trial adds (its record, the sampler's and the median rule's data, the best
 * candidates), and finally the served blend. Trials may finish in any order and several may run
 * at once (./fan-out): a proposal is made without the results of the trials still running.
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
import type { FoldFit, SearchRows, TrialOutcome, TrialSpec, TrialStatus } from "./trial";

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
  /** Threads to boost on (see ../../gbdt/train); absent: this thread only. */
  parallel?: ParallelExecutor;
}

export interface TrialRecord {
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
export type SearchStopReason = "max_trials" | "converged" | "time_budget";

export interface SearchResult {
  method: FoldPlan["method"];
  /** In the order of the trials' numbers. */
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
  /** The instances that ran trials (1: all here). */
  instances: number;
  /** Boosting rounds of the best trial's (first) model. */
  rounds: number;
  roundsRun: number;
  bestStopReason: StopReason;
}

interface Candidate {
  trial: number;
  loss: number;
  fits: FoldFit[];
}

export class SearchScheduler {
  private readonly space;
  private readonly sampler;
  private readonly start: number;
  /** Raw outputs per row: one for regression and binary classification, one per class else. */
  private readonly K: number;
  private readonly classes: number;
  private readonly trials: TrialRecord[] = [];
  private readonly firstFoldLosses: number[] = [];
  /** The sampler's point of each trial sent and not yet recorded (null: the defaults). */
  private readonly units = new Map<number, { unit: Float64Array | null; params: PredictionParams }>();
  private candidates: Candidate[] = [];
  private nextTrial = 0;
  private sinceBest = 0;
  private roundsRun = 0;
  private stopped: SearchStopReason | null = null;
  /** Where the trials ran (an outcome names its instance when it ran elsewhere). */
  private readonly instances = new Set<string>();

  constructor(
    private readonly data: SearchRows,
    private readonly plan: FoldPlan,
    private readonly opts: SearchOptions,
  ) {
    this.space = searchSpace(opts.params);
    this.sampler = new ParzenSampler(this.space.keys.length, opts.seed);
    this.start = opts.now();
    this.classes = data.label.classes ? data.label.classes.length : 1;
    this.K = this.classes > 2 ? this.classes : 1;
  }

  /** Milliseconds of the budget left. */
  left(): number {
    return this.opts.timeBudgetMs - (this.opts.now() - this.start);
  }

  /** Whether a trial has completed (there is a model to serve). */
  get hasModel(): boolean {
    return this.candidates.length > 0;
  }

  get bestLoss(): number {
    return this.candidates[0]?.loss ?? Number.POSITIVE_INFINITY;
  }

  /** The next trial to run, or null once the search stops (the reason is kept). */
  next(): TrialSpec | null {
    if (this.stopped) return null;
    const t = this.nextTrial;
    if (t >= this.opts.maxTrials) return this.stop("max_trials");
    const done = this.candidates.length > 0;
    const meanSeconds = this.trials.length ? this.trials.reduce((s, r) => s + r.seconds, 0) / this.trials.length : 0;
    if ((done && this.left() < meanSeconds * 1000) || (t > 0 && this.left() <= 0)) return this.stop("time_budget");
    if (done && this.sinceBest >= PATIENCE) return this.stop("converged");
    const unit = t === 0 ? null : this.sampler.propose();
    const config: SearchConfig = unit ? this.space.config(unit) : {};
    const params: PredictionParams = { ...this.opts.params, ...config, seed: this.opts.seed + t };
    this.units.set(t, { unit, params });
    this.nextTrial++;
    const prune = t >= MIN_TRIALS_BEFORE_PRUNING && this.firstFoldLosses.length > 0;
    return {
      trial: t,
      params,
      budgetMs: this.left(),
      // the first trial must finish whatever the budget: it is the model served if nothing else is
      floorMs: t === 0 ? this.opts.timeBudgetMs / this.plan.folds.length : null,
      pruneAbove: prune ? quantile(this.firstFoldLosses, 0.5) : null,
    };
  }

  /** A finished trial: its record (also kept for the output). */
  record(o: TrialOutcome): TrialRecord {
    const sent = this.units.get(o.trial);
    if (!sent) throw new Error(`trial ${o.trial} was not sent, or was recorded twice`);
    this.units.delete(o.trial);
    const { fits } = o;
    this.instances.add(o.instance ?? "here");
    for (const fit of fits) this.roundsRun += fit.model.trees.length / this.K;
    if (fits.length > 0) {
      this.firstFoldLosses.push(fits[0].loss);
      if (sent.unit) this.sampler.tell(sent.unit, fits[0].loss);
    }
    const loss = fits.length ? fits.reduce((s, x) => s + x.loss, 0) / fits.length : Number.POSITIVE_INFINITY;
    const record: TrialRecord = {
      trial: o.trial,
      params: this.effectiveParams(sent.params),
      loss,
      folds: fits.length,
      rounds: fits[0]?.rounds ?? 0,
      seconds: o.seconds,
      status: o.status,
    };
    this.trials.push(record);
    if (o.status === "completed") {
      const improved = this.candidates.length === 0 || loss < this.candidates[0].loss;
      this.sinceBest = improved ? 0 : this.sinceBest + 1;
      this.candidates = [...this.candidates, { trial: o.trial, loss, fits }].sort((a, b) => a.loss - b.loss).slice(0, ENSEMBLE_CANDIDATES);
    } else this.sinceBest++;
    if (o.status === "out_of_time") this.stop("time_budget");
    return record;
  }

  /** Stops proposing trials (the budget ran out while trials were still running). */
  stop(reason: SearchStopReason): null {
    this.stopped ??= reason;
    return null;
  }

  /** The served model: the best trial, or the blend of the best that scores better out of fold. */
  result(): SearchResult {
    const { data, plan, K, candidates } = this;
    if (candidates.length === 0) {
      const failed = this.trials.find((t) => t.status === "failed");
      throw new Error(`no trial of the model search completed${failed ? " (the trials' instances failed)" : ""}`);
    }
    const evalPositions = Int32Array.from(plan.folds.flatMap((f) => Array.from(f.score)));
    const raws = candidates.map((c) => outOfFoldRaw(c, K));
    const rows = data.rows;
    const y = Float64Array.from(evalPositions, (p) => data.label.y[rows ? rows[p] : p]);
    const objective = candidates[0].fits[0].model.objective;
    const choice = selectEnsemble(objective, raws, y, K);
    const members = choice.members.map((m) => ({ candidate: candidates[m.index], weight: m.weight }));
    const model = blendGbdtModels(
      members.flatMap(({ candidate, weight }) => candidate.fits.map((fit) => ({ model: fit.model, weight: weight / candidate.fits.length }))),
    );
    const evalRaw = new Float64Array(evalPositions.length * K);
    for (const m of choice.members) {
      const raw = raws[m.index];
      for (let i = 0; i < evalRaw.length; i++) evalRaw[i] += m.weight * raw[i];
    }
    const best = candidates[0];
    const trials = [...this.trials].sort((a, b) => a.trial - b.trial);
    return {
      method: plan.method,
      trials,
      best: trials.findIndex((t) => t.trial === best.trial),
      ensemble: members.length > 1 ? { members: members.map((m) => ({ trial: m.candidate.trial, weight: m.weight })), loss: choice.loss } : null,
      model,
      evalPositions,
      evalRaw,
      evalLabels: y,
      stopReason: this.stopped ?? "max_trials",
      instances: this.instances.size,
      rounds: best.fits[0].rounds,
      roundsRun: this.roundsRun,
      bestStopReason: best.fits[0].stopReason,
    };
  }

  /** The parameters a trial boosted with, as the request names them (defaults and the rate by rows included). */
  private effectiveParams(params: PredictionParams): Record<string, number> {
    const g = gbdtParams(params, this.plan.folds[0].fit.length, this.data.label.task, this.classes);
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

function round4(v: number): number {
  return Math.round(v * 1e4) / 1e4;
}

function quantile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * (s.length - 1)))];
}
