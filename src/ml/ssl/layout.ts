/**
 * How the featurized matrix becomes the encoder's input and reconstruction target.
 *
 * Per featurizer feature j (the representation's featurizer, every usable column):
 * - numeric (numeric, boolean, datetime parts): standardized with the mean and standard deviation
 *   of the data ((x - mean) / std, std 1 when constant), clipped to ±CLIP; one input, one output;
 * - categorical: one-hot over its most frequent levels (at most `levelCap` of them, computed from
 *   the data), plus an "other" slot when the column has more levels than that;
 * - missing (NaN, or a category the layout does not know) counts as masked: its inputs are 0, its
 *   mask indicator is 1, and it is left out of the loss.
 * Inputs are [feature blocks (width D) | one mask indicator per feature (F)]; outputs are the
 * feature blocks (D).
 */
import { type FeaturizerSpec, FLOAT32_MAX } from "../featurize";

/** Standardized values are clipped to ±CLIP. */
const CLIP = 5;
/** Most one-hot levels per categorical feature (the rest share an "other" slot). */
const MAX_LEVELS = 16;
/** Total one-hot width across categorical features; the per-column cap shrinks on wide data. */
const ONE_HOT_BUDGET = 512;

export type SslFeature =
  | { kind: "numeric"; mean: number; std: number }
  /** levels[s] = featurizer code of slot s; `other`: one more slot for every other code. */
  | { kind: "categorical"; levels: number[]; other: boolean };

/** The layout in the form the math uses. */
export interface Layout {
  F: number;
  /** Output width (sum of block widths); input width is D + F. */
  D: number;
  categorical: Uint8Array;
  /** Categorical: 1 when the last slot is "other". */
  other: Uint8Array;
  offset: Int32Array;
  width: Int32Array;
  mean: Float64Array;
  invStd: Float64Array;
  /** Categorical: featurizer code -> slot (-1 = unknown, treated as missing). */
  slotOf: (Int32Array | null)[];
}

function levelCap(numCategorical: number): number {
  return Math.max(1, Math.min(MAX_LEVELS, Math.floor(ONE_HOT_BUDGET / Math.max(1, numCategorical))));
}

/** Block widths implied by a featurizer spec alone (what planning needs before any data pass). */
export function plannedWidths(spec: FeaturizerSpec): number[] {
  const cap = levelCap(spec.features.filter((f) => f.transform === "category").length);
  return spec.features.map((f) => {
    if (f.transform !== "category") return 1;
    const v = f.vocabulary?.length ?? 0;
    return v > cap ? cap + 1 : Math.max(1, v);
  });
}

/** Statistics of each feature over all rows of the featurized matrix. */
export function describeFeatures(spec: FeaturizerSpec, data: Float32Array, n: number): SslFeature[] {
  const F = spec.features.length;
  const cap = levelCap(spec.features.filter((f) => f.transform === "category").length);
  return spec.features.map((f, j): SslFeature => {
    if (f.transform === "category") {
      const card = f.vocabulary?.length ?? 0;
      const counts = new Float64Array(card);
      for (let i = 0; i < n; i++) {
        const x = data[i * F + j];
        if (x === x && x >= 0 && x < card) counts[x]++;
      }
      const order = Array.from({ length: card }, (_, c) => c).sort((a, b) => counts[b] - counts[a] || a - b);
      // as plannedWidths: the vocabulary holds levels seen in the data, so widths agree
      const levels = order.slice(0, Math.min(cap, card));
      return { kind: "categorical", levels: levels.length ? levels : [0], other: card > cap };
    }
    let count = 0;
    let mean = 0;
    let m2 = 0;
    for (let i = 0; i < n; i++) {
      const x = data[i * F + j];
      if (x !== x || x >= FLOAT32_MAX || x <= -FLOAT32_MAX) continue;
      count++;
      const d = x - mean;
      mean += d / count;
      m2 += d * (x - mean);
    }
    const std = count > 0 ? Math.sqrt(m2 / count) : 0;
    return { kind: "numeric", mean: count > 0 ? mean : 0, std: std > 0 && Number.isFinite(std) ? std : 1 };
  });
}

export function compileLayout(features: SslFeature[]): Layout {
  const F = features.length;
  const categorical = new Uint8Array(F);
  const other = new Uint8Array(F);
  const offset = new Int32Array(F);
  const width = new Int32Array(F);
  const mean = new Float64Array(F);
  const invStd = new Float64Array(F);
  const slotOf: (Int32Array | null)[] = [];
  let D = 0;
  features.forEach((f, j) => {
    offset[j] = D;
    if (f.kind === "numeric") {
      width[j] = 1;
      mean[j] = f.mean;
      invStd[j] = 1 / f.std;
      slotOf.push(null);
    } else {
      categorical[j] = 1;
      other[j] = f.other ? 1 : 0;
      width[j] = f.levels.length + (f.other ? 1 : 0);
      const maxCode = f.levels.reduce((a, b) => Math.max(a, b), -1);
      // codes past the table (none in training data) are "other" or unknown, see readRow
      const table = new Int32Array(maxCode + 1).fill(f.other ? f.levels.length : -1);
      f.levels.forEach((c, s) => (table[c] = s));
      slotOf.push(table);
    }
    D += width[j];
  });
  return { F, D, categorical, other, offset, width, mean, invStd, slotOf };
}

/**
 * Read row `i` of a [n x F] featurized matrix into `value[at + j]`, the standardized value
 * (numeric) or the slot (categorical), and `present[at + j]`, 0 when missing.
 */
export function readRow(L: Layout, data: Float32Array, i: number, value: Float64Array, present: Uint8Array, at: number): void {
  const F = L.F;
  const base = i * F;
  for (let j = 0; j < F; j++) {
    const x = data[base + j];
    if (x !== x) {
      present[at + j] = 0;
      continue;
    }
    if (L.categorical[j] === 1) {
      const table = L.slotOf[j]!;
      const s = (x | 0) !== x || x < 0 ? -1 : x < table.length ? table[x] : L.other[j] === 1 ? L.width[j] - 1 : -1;
      if (s < 0) {
        present[at + j] = 0;
        continue;
      }
      value[at + j] = s;
    } else {
      const v = (x - L.mean[j]) * L.invStd[j];
      value[at + j] = v > CLIP ? CLIP : Math.max(v, -CLIP);
    }
    present[at + j] = 1;
  }
}
