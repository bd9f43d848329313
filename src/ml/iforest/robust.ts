/** Order statistics and robust spread of score distributions (threshold rules, the blend). */

/** MAD · 1.4826 estimates σ for normal data. */
const MAD_TO_SIGMA = 1.4826;
/** Mean absolute deviation · 1.2533 (√(π/2)) estimates σ for normal data. */
const MEAN_AD_TO_SIGMA = 1.2533;

/** Linear-interpolation quantile of ascending values (numpy's default "linear" method). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  const pos = Math.min(Math.max(q, 0), 1) * (n - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
}

/**
 * Median and σ estimate of `values`: 1.4826 · MAD, or, when more than half the values tie
 * (MAD = 0), 1.2533 · mean |v - median|; scale 0 only when every value is equal.
 */
export function robustCenterScale(values: ArrayLike<number>): { center: number; scale: number } {
  const sorted = Float64Array.from(values).sort();
  if (sorted.length === 0) return { center: 0, scale: 0 };
  const center = quantileSorted(sorted, 0.5);
  const dev = sorted.map((v) => Math.abs(v - center)).sort();
  const mad = quantileSorted(dev, 0.5);
  if (mad > 0) return { center, scale: MAD_TO_SIGMA * mad };
  let sum = 0;
  for (const d of dev) sum += d;
  return { center, scale: (MEAN_AD_TO_SIGMA * sum) / dev.length };
}
