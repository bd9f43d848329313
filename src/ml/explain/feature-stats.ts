/**
 * What "typical" means for each feature of a model, measured on its training rows and stored with
 * the model, so explanations can say "amount is 9,400 (typical: 20–300)" and counterfactuals can
 * try usual values without the training data:
 * - numeric-like features (numbers, booleans, datetime parts): 21 quantiles p0, p5, ..., p100 of
 *   the present values, from at most STATS_ROWS evenly spaced rows; each is a value of the data
 *   (nearest rank, no interpolation), so integer data has integer quantiles and the text never
 *   shows a value nobody wrote;
 * - categories: the share of all rows holding each vocabulary code.
 * Both with the share of missing values.
 */
import type { FeatureMatrix, FeaturizerSpec } from "../featurize";

/** Rows read for the quantiles: evenly spaced, so the cost is bounded on any table. */
const STATS_ROWS = 100_000;
const QUANTILE_STEPS = 20;

export type FeatureStats = { kind: "numeric"; quantiles: number[]; missing: number } | { kind: "category"; shares: number[]; missing: number };

export function featureStats(featurizer: FeaturizerSpec, m: FeatureMatrix): FeatureStats[] {
  const { numRows: n, numFeatures: F, data } = m;
  const stride = Math.max(1, Math.ceil(n / STATS_ROWS));
  return featurizer.features.map((def, j): FeatureStats => {
    if (def.transform === "category") {
      const shares = new Array<number>(def.vocabulary?.length ?? 0).fill(0);
      let missing = 0;
      for (let i = 0; i < n; i++) {
        const x = data[i * F + j];
        if (x === x && x >= 0 && x < shares.length) shares[x]++;
        else missing++;
      }
      return { kind: "category", shares: shares.map((c) => c / Math.max(1, n)), missing: missing / Math.max(1, n) };
    }
    const values: number[] = [];
    let seen = 0;
    for (let i = 0; i < n; i += stride) {
      seen++;
      const x = data[i * F + j];
      if (x === x) values.push(x);
    }
    const sorted = Float64Array.from(values).sort();
    const quantiles = sorted.length
      ? Array.from({ length: QUANTILE_STEPS + 1 }, (_, q) => sorted[Math.round((q / QUANTILE_STEPS) * (sorted.length - 1))])
      : [];
    return { kind: "numeric", quantiles, missing: seen ? 1 - values.length / seen : 1 };
  });
}

/** A feature's most usual value: the median, or the most frequent code; NaN when it was always missing. */
export function typicalValue(s: FeatureStats): number {
  if (s.kind === "numeric") return s.quantiles.length ? s.quantiles[QUANTILE_STEPS / 2] : NaN;
  let best = -1;
  for (let c = 0; c < s.shares.length; c++) if (best < 0 || s.shares[c] > s.shares[best]) best = c;
  return best;
}

/** The p5–p95 range of a numeric-like feature, or null. */
export function typicalRange(s: FeatureStats): [number, number] | null {
  if (s.kind !== "numeric" || s.quantiles.length === 0) return null;
  return [s.quantiles[1], s.quantiles[QUANTILE_STEPS - 1]];
}

/** A robust spread of a numeric-like feature (p75 - p25, else p95 - p5, else p100 - p0, else 1): the unit of "a small change". */
export function typicalSpread(s: FeatureStats): number {
  if (s.kind !== "numeric" || s.quantiles.length === 0) return 1;
  const q = s.quantiles;
  return q[15] - q[5] || q[19] - q[1] || q[20] - q[0] || 1;
}

/** Whether every quantile is a whole number (integer data: counterfactual values then stay whole). */
export function wholeNumbers(s: FeatureStats): boolean {
  return s.kind === "numeric" && s.quantiles.length > 0 && s.quantiles.every((v) => Number.isInteger(v));
}
