/**
 * Where "anomalous" starts on a score distribution (higher = more anomalous).
 *
 * - With a contamination c: the (1 - c) quantile of the training scores (linear interpolation
 *   between order statistics, as numpy's default), so about c·N training rows lie above it.
 * - Without one: a robust outlier cut on the scores themselves, the one-sided modified z-score
 *   rule of Iglewicz & Hoaglin (1993): anomalous when (s - median) / (1.4826 · MAD) > 3.5, i.e.
 *   threshold = median + 3.5 · 1.4826 · MAD. It flags only the scores that stand out from the
 *   bulk of the distribution, however many or few there are (none on clean data), where a fixed
 *   fraction would always flag some. When more than half the scores tie (MAD = 0) the mean absolute
 *   deviation from the median (· 1.2533, its normal-consistency factor) takes MAD's place;
 *   when every score is equal nothing is flagged.
 * Either way the cut is then moved to the middle of the gap between the training scores around
 * it. This changes none of the training rows' flags, and keeps them stable: a row's score computed
 * by onnxruntime (summing trees in another order, ~1e-15 apart) cannot fall on the other side.
 * Ties at the cut are not flagged (`score > threshold`).
 */

import { quantileSorted, robustCenterScale } from "./robust";

export type ThresholdRule = { rule: "contamination"; contamination: number } | { rule: "modified_z"; z: number };

export const MODIFIED_Z_CUT = 3.5;

/** The threshold of `scores` under `rule`; `score > threshold` is anomalous. */
export function anomalyThreshold(scores: Float64Array, rule: ThresholdRule): number {
  const sorted = Float64Array.from(scores).sort();
  const n = sorted.length;
  if (n === 0) return 0;
  let t: number;
  if (rule.rule === "contamination") t = quantileSorted(sorted, 1 - rule.contamination);
  else {
    const { center, scale } = robustCenterScale(sorted);
    t = scale > 0 ? center + rule.z * scale : sorted[n - 1];
  }
  return midGap(sorted, t);
}
/**
 * The middle of the gap between the largest score <= t and the smallest score > t; past the
 * largest score, at least 1e-9 above it (the values cut here, scores in [0, 1] or the blend's
 * logits, are of order 1, so that is well clear of rounding).
 */
function midGap(sorted: Float64Array, t: number): number {
  // first index with sorted[i] > t
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] > t) hi = mid;
    else lo = mid + 1;
  }
  if (lo === sorted.length) return Math.max(t, sorted[lo - 1] + 1e-9);
  if (lo === 0) return t;
  return sorted[lo - 1] + (sorted[lo] - sorted[lo - 1]) / 2;
}
