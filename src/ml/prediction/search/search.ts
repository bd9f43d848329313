/**
 * The model search of a prediction model: trials of boosting parameters, each scored by
 * cross-validation or a holdout (./folds), proposed by a Parzen sampler (./sampler) after a first
 * trial of today's defaults, within a time budget; a trial whose first fold already scores worse
 * than the median of the trials before it stops there (successive halving over folds). The best
 * trials are then blended by greedy ensemble selection (./ensemble) when that scores better out of
 * fold, and served as one tree model: fold models averaged, members weighted (../../gbdt/blend).
 *
 * Two ways to run it over the same state (./scheduler): trial after trial here, or several at once
 * on other trainer instances (./fan-out).
 */
import type { FoldPlan } from "./folds";
import { type SearchOptions, type SearchResult, SearchScheduler, type SearchStopReason, type TrialRecord } from "./scheduler";
import { runTrial, type SearchRows } from "./trial";

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

/**
 * A boosting round of the trial running here; a trial done (with the best loss so far); or a wait
 * for work done elsewhere (the caller awaits `until` before asking for the next event).
 */
export type SearchEvent = { kind: "round" } | { kind: "trial"; record: TrialRecord; bestLoss: number } | { kind: "wait"; until: Promise<unknown> };

/** The search with its trials run one after the other, here. */
export function* searchPrediction(data: SearchRows, plan: FoldPlan, opts: SearchOptions): Generator<SearchEvent, SearchResult, void> {
  const search = new SearchScheduler(data, plan, opts);
  for (let spec = search.next(); spec; spec = search.next()) {
    const trial = runTrial(data, plan, spec, opts.now, opts.parallel);
    let r = trial.next();
    for (; !r.done; r = trial.next()) yield { kind: "round" };
    const record = search.record(r.value);
    yield { kind: "trial", record, bestLoss: search.hasModel ? search.bestLoss : record.loss };
  }
  return search.result();
}
