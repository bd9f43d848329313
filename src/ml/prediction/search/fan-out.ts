/**
 * The search with its trials run elsewhere, several at once: as many trials in flight as the pool
 * has instances, a new one proposed (without the results of those still running) as each one
 * finishes, until the scheduler stops. The pool is whatever runs trials (the trainer's, over the
 * job's Durable Object and the queue); the engine only sees this interface, and waits for it with
 * `wait` events, which its caller awaits.
 */
import type { FoldPlan } from "./folds";
import { type SearchOptions, type SearchResult, SearchScheduler } from "./scheduler";
import { type SearchEvent, searchPrediction } from "./search";
import type { SearchRows, TrialOutcome, TrialSpec } from "./trial";

/** Runs trials on other instances. */
export interface TrialPool {
  /** Trials that run at once. */
  readonly instances: number;
  /**
   * Makes the search's rows and plan readable by the instances (before any trial is sent); false
   * when it cannot (too large to hand over): the search then runs its trials here, one after the other.
   */
  open(data: SearchRows, plan: FoldPlan): Promise<boolean>;
  /** Sends a trial. */
  submit(spec: TrialSpec): Promise<void>;
  /**
   * The trials finished since the last call (a trial whose instances all died comes back
   * `failed`): waits for at least one, or at most `limitMs`, then answers [].
   */
  settled(limitMs: number): Promise<TrialOutcome[]>;
  /** Stops the trials still running and lets go of the rows (the search is over). */
  close(): Promise<void>;
}

/**
 * How long past the budget the search waits for trials still running before it stops them: they
 * were sent with the time left and stop themselves at it; this is their last report's way back.
 */
const STRAGGLER_GRACE_MS = 15_000;

export function* searchPredictionFanOut(
  data: SearchRows,
  plan: FoldPlan,
  opts: SearchOptions,
  pool: TrialPool,
): Generator<SearchEvent, SearchResult, void> {
  if (!(yield* waitFor(pool.open(data, plan)))) return yield* searchPrediction(data, plan, opts);
  const search = new SearchScheduler(data, plan, opts);
  // the trials in flight, and when each was sent
  const running = new Map<number, number>();
  for (;;) {
    while (running.size < pool.instances) {
      const spec = search.next();
      if (!spec) break;
      yield* waitFor(pool.submit(spec));
      running.set(spec.trial, opts.now());
    }
    if (running.size === 0) break;
    // until a model exists, wait as long as it takes (the pool fails a trial whose instances died)
    const limit = search.hasModel ? Math.max(0, search.left()) + STRAGGLER_GRACE_MS : Number.POSITIVE_INFINITY;
    const outcomes = yield* waitFor(pool.settled(limit));
    if (outcomes.length === 0) {
      // past the budget: what still runs is stopped (by close) and counted out of time
      search.stop("time_budget");
      for (const [trial, sentAt] of running) search.record({ trial, fits: [], status: "out_of_time", seconds: (opts.now() - sentAt) / 1000 });
      break;
    }
    for (const o of outcomes) {
      if (!running.delete(o.trial)) continue;
      const record = search.record(o);
      yield { kind: "trial", record, bestLoss: search.hasModel ? search.bestLoss : record.loss };
    }
  }
  // A canceled or failed job never gets here: its trials stop at their next report, which the
  // job's object answers "canceled" once the job no longer runs.
  yield* waitFor(pool.close());
  return search.result();
}

/** Hands `promise` to the caller as a `wait` event and resumes with its value (or its error). */
function* waitFor<T>(promise: Promise<T>): Generator<SearchEvent, T, void> {
  let settled: { value: T } | { error: unknown } | null = null;
  yield {
    kind: "wait",
    until: promise.then(
      (value) => {
        settled = { value };
      },
      (error: unknown) => {
        settled = { error };
      },
    ),
  };
  const s = settled as { value: T } | { error: unknown } | null;
  if (!s) throw new Error("the search was resumed before what it waited for was done");
  if ("error" in s) throw s.error;
  return s.value;
}
