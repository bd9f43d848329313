/**
 * Abandoning a restart that is heading for a clearly worse optimum than the best restart so far
 * (./kmeans). On overlapping clusters most of a fit's iterations are spent by restarts whose
 * seeding led to a worse local optimum (two centers splitting one group, one center on two):
 * they crawl to it over tens of iterations, each moving the objective by ~1e-4 of its value, and
 * are then discarded anyway (bench/unsupervised/clustering-RESULTS.md).
 *
 * The objective of a restart after each center update (the current labels' squared distances to
 * their new means) never increases from one Lloyd iteration to the next. The rule: a restart is
 * abandoned when that objective is above the best restart's final inertia by more than
 * MARGIN of it AND by more than HORIZON times what the last iteration gained (at that pace it
 * would need HORIZON more iterations just to tie). A restart close to the best, or still
 * improving fast, always runs to the end. This is a judgement, not a proof: a restart that
 * creeps for a few iterations (a center migrating between two groups) and then drops steeply
 * looks like a stuck one until the drop, and is abandoned too. bench/unsupervised/clustering-abandon.ts
 * counts the cost: the kept optimum changed in 1 fit of 200 (by 1e-5), and some abandoned
 * restarts would have reached the best, which another restart had found.
 *
 * The objective costs O(k·d) per iteration, from the cluster sums the iterations keep anyway:
 * Σ_i |x_i - μ_c(i)|² = Σ_i |x_i - p|² - Σ_c n_c·|μ_c - p|² for any point p; p is the first row
 * (as in ./centers meanVariance, so that columns far from 0 do not cancel). The same rule with
 * the same sums (built and moved alike by every variant) abandons the same restarts, at the same
 * iteration, in Lloyd, Elkan and Hamerly.
 */
import type { ClusterSums } from "./centers";

/** Abandon only restarts above the best by more than this share of it. */
const MARGIN = 0.01;
/** ... and whose gap to the best is more than this many times the last iteration's gain. */
const HORIZON = 20;

/** What a restart is judged against: the best restart's inertia, and the data's spread about its first row. */
export interface RestartBar {
  best: number;
  /** The first row of X [d]. */
  origin: Float64Array;
  /** Σ_i |x_i - origin|² (./centers columnSpread). */
  squaresAboutOrigin: number;
}

/** One restart's judge: call `abandons` after each center update. */
export class RestartJudge {
  private previous = Infinity;
  /** The objective after the last center update. */
  objective = Infinity;

  constructor(private readonly bar: RestartBar) {}

  /** Whether the restart is clearly worse than the best (see above); `sums`: its cluster sums after the update. */
  abandons(sums: ClusterSums): boolean {
    const { best, origin, squaresAboutOrigin } = this.bar;
    this.previous = this.objective;
    this.objective = squaresAboutOrigin - sums.squaresOfMeansAbout(origin);
    const gap = this.objective - best;
    return gap > MARGIN * best && gap > HORIZON * (this.previous - this.objective);
  }
}
