/**
 * Choosing k when the user gives none: k-means for each k in 2..kMax on a seeded sample of at
 * most FIT_SAMPLE_ROWS rows, scored by the exact mean silhouette (O(s²·d)) of a sub-sample of at
 * most SILHOUETTE_SAMPLE_ROWS rows assigned to the nearest center; the best score wins (the
 * smaller k on a tie). Fitting on a sample keeps the 9 candidate fits cheap on large tables; the
 * chosen k is then fitted on every row. Each candidate uses the model's seed, so when the sample
 * is the whole table the chosen candidate IS the final fit, and the caller reuses it.
 */
import type { ParallelExecutor } from "../parallel";
import { Rng } from "../random";
import { assignNearest } from "./centers";
import { type KMeansResult, kmeansSteps } from "./kmeans";
import { sampleRows, takeRows } from "./rows";
import { silhouetteScore } from "./silhouette";

/** Largest k tried. */
export const AUTO_K_MAX = 10;
/** Rows the candidate fits see. */
const FIT_SAMPLE_ROWS = 20_000;
/** Rows the silhouette is computed on (4M pairs at most). */
const SILHOUETTE_SAMPLE_ROWS = 2_000;

export interface ClusterSamples {
  /** Rows of the candidate fits (increasing; every row when the table is small). */
  fit: Int32Array;
  /** Rows of the silhouette, a subset of `fit`. */
  silhouette: Int32Array;
}

/** The seeded samples (same seed, same rows). */
export function clusterSamples(n: number, seed: number): ClusterSamples {
  const fit = sampleRows(n, FIT_SAMPLE_ROWS, new Rng(seed ^ 0x51a7));
  const pick = sampleRows(fit.length, SILHOUETTE_SAMPLE_ROWS, new Rng(seed ^ 0x5117));
  return { fit, silhouette: Int32Array.from(pick, (i) => fit[i]) };
}

/** Mean silhouette of the sample rows, each assigned to its nearest center (null: one cluster only). */
export function sampleSilhouette(X: Float64Array, d: number, rows: Int32Array, centers: Float64Array, k: number): number | null {
  const S = takeRows(X, d, rows);
  const { labels } = assignNearest(S, rows.length, d, centers, k);
  return silhouetteScore(S, rows.length, d, labels, k);
}

export interface KChoice {
  k: number;
  /** Every candidate's score, by increasing k. */
  scores: { k: number; silhouette: number | null }[];
  /** The chosen candidate's fit when it was fitted on every row (reusable as the final fit), else null. */
  fit: KMeansResult | null;
}

export interface KChoiceOptions {
  /** Candidates are 2..kMax (the caller bounds it by the rows and the distinct rows). */
  kMax: number;
  nInit: number;
  maxIter: number;
  seed: number;
  parallel?: ParallelExecutor;
}

/** The candidates' matrix: the fit sample's rows (X itself when the sample is every row). */
export function fitSampleMatrix(X: Float64Array, n: number, d: number, samples: ClusterSamples): Float64Array {
  return samples.fit.length === n ? X : takeRows(X, d, samples.fit);
}

/**
 * Candidates' fits on F = fitSampleMatrix(...), one yield per k-means restart ((kMax - 1) × nInit
 * of them). The caller bounds kMax by F's rows - 1 and distinct rows.
 */
export function* chooseKSteps(
  X: Float64Array,
  n: number,
  d: number,
  samples: ClusterSamples,
  F: Float64Array,
  opts: KChoiceOptions,
): Generator<void, KChoice, void> {
  const m = samples.fit.length;
  const whole = m === n;
  const scores: KChoice["scores"] = [];
  let best: { k: number; score: number; fit: KMeansResult } | null = null;
  for (let k = 2; k <= opts.kMax; k++) {
    const fit = yield* restarts(kmeansSteps(F, m, d, { k, nInit: opts.nInit, maxIter: opts.maxIter, seed: opts.seed, parallel: opts.parallel }));
    const s = sampleSilhouette(X, d, samples.silhouette, fit.centers, k);
    scores.push({ k, silhouette: s });
    if (s !== null && (!best || s > best.score)) best = { k, score: s, fit };
  }
  return { k: best?.k ?? 2, scores, fit: whole && best ? best.fit : null };
}

function* restarts(steps: Generator<number, KMeansResult, void>): Generator<void, KMeansResult, void> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    yield;
  }
}
