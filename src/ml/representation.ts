/**
 * The shared per-dataset representation: a column profile, a featurizer over every usable column
 * (no label chosen yet) and the quantile bins of each of its features. Built once per dataset
 * version and stored as JSON; every later model on the same data derives its own featurizer
 * (label and non-input columns removed) and reuses the bins instead of binning again.
 */
import type { ColumnKind, Frame } from "./frame";
import { applyFeaturizer, buildFeaturizer, featureKinds, selectFeatures, type FeaturizerSpec } from "./featurize";
import { computeBins, type FeatureBins } from "./gbdt/bins";
import { MlInputError } from "./errors";

const PROFILE_SAMPLE = 100_000;

export interface ColumnProfile {
  name: string;
  kind: ColumnKind;
  storage: "numeric" | "dictionary";
  missing: number;
  /** Exact when the column has at most 100,000 present values; above that, estimated from a sample. */
  distinct: number;
  /** Numeric storage only (over present finite values; null when there are none). */
  min?: number | null;
  max?: number | null;
  mean?: number | null;
  std?: number | null;
  /** Number of ±Infinity values (numeric storage). */
  infinite?: number;
  /** Dictionary storage: the most frequent values. */
  top?: { value: string; count: number }[];
}

export interface Representation {
  format: "representation-v1";
  rowCount: number;
  profile: ColumnProfile[];
  featurizer: FeaturizerSpec;
  /** bins[i] belongs to featurizer.features[i]. */
  bins: FeatureBins[];
}

export interface BuildRepresentationOptions {
  seed?: number;
  maxBins?: number;
}

export function buildRepresentation(frame: Frame, opts: BuildRepresentationOptions = {}): Representation {
  const featurizer = buildFeaturizer(frame, { labelColumn: null });
  const m = applyFeaturizer(featurizer, frame);
  const isCat = featureKinds(featurizer).map((k) => k.type === "categorical");
  const bins = computeBins(m.data, m.numRows, m.numFeatures, isCat, { seed: opts.seed ?? 0, maxBins: opts.maxBins });
  return { format: "representation-v1", rowCount: frame.rowCount, profile: profileFrame(frame), featurizer, bins };
}

export function profileFrame(frame: Frame): ColumnProfile[] {
  const n = frame.rowCount;
  return frame.columns.map((col) => {
    if (col.storage === "dictionary") {
      const counts = new Float64Array(col.dictionary.length);
      let missing = 0;
      for (let i = 0; i < n; i++) {
        const c = col.codes[i];
        if (c < 0) missing++;
        else counts[c]++;
      }
      const used = [...counts.keys()].filter((c) => counts[c] > 0).sort((a, b) => counts[b] - counts[a]);
      return {
        name: col.name, kind: col.kind, storage: "dictionary", missing, distinct: used.length,
        top: used.slice(0, 10).map((c) => ({ value: col.dictionary[c], count: counts[c] })),
      } satisfies ColumnProfile;
    }
    let missing = 0;
    let infinite = 0;
    // Welford's running mean and sum of squared deviations: sum2/n - mean^2 cancels
    // catastrophically on large values with a small spread (timestamps, ids around 1e9+).
    let mean = 0;
    let m2 = 0;
    let min = Infinity;
    let max = -Infinity;
    let finite = 0;
    const sorted = new Float64Array(n);
    let m = 0;
    for (let i = 0; i < n; i++) {
      const x = col.values[i];
      if (x !== x) {
        missing++;
        continue;
      }
      sorted[m++] = x;
      if (x === Infinity || x === -Infinity) {
        infinite++;
        continue;
      }
      finite++;
      const d = x - mean;
      mean += d / finite;
      m2 += d * (x - mean);
      if (x < min) min = x;
      if (x > max) max = x;
    }
    // distinct count: exact up to PROFILE_SAMPLE present values, else estimated on an even sample
    const step = Math.max(1, Math.ceil(m / PROFILE_SAMPLE));
    let k = 0;
    for (let i = 0; i < m; i += step) sorted[k++] = sorted[i];
    const s = sorted.subarray(0, k).sort();
    let distinct = 0;
    for (let i = 0; i < k; i++) if (i === 0 || s[i] !== s[i - 1]) distinct++;
    if (step > 1 && distinct > 0.5 * k) distinct = Math.round((distinct / k) * m);
    return {
      name: col.name, kind: col.kind, storage: "numeric", missing, distinct,
      min: finite ? min : null, max: finite ? max : null,
      mean: finite ? mean : null, std: finite ? Math.sqrt(m2 / finite) : null, infinite,
    } satisfies ColumnProfile;
  });
}

/** The featurizer and bins of one model: the representation minus the label and non-inputs. */
export function deriveModelFeatures(
  rep: Representation,
  labelColumn: string,
  inputColumns?: string[],
): { featurizer: FeaturizerSpec; bins: FeatureBins[] } {
  const inputs = inputColumns ? new Set(inputColumns) : null;
  let spec = selectFeatures(rep.featurizer, (src) => src !== labelColumn, "label column");
  if (inputs) spec = selectFeatures(spec, (src) => inputs.has(src), "not in input_columns");
  spec = {
    ...spec,
    labelColumn,
    columns: spec.columns.map((c) =>
      c.name === labelColumn ? { ...c, used: false, reason: "label column", features: [] }
      : inputs && !inputs.has(c.name) && !c.used ? { ...c, reason: "not in input_columns" } : c,
    ),
  };
  const index = new Map(rep.featurizer.features.map((f, i) => [f.name, i]));
  const bins = spec.features.map((f) => rep.bins[index.get(f.name)!]);
  return { featurizer: spec, bins };
}

export function serializeRepresentation(rep: Representation): string {
  return JSON.stringify(rep);
}

export function parseRepresentation(json: string): Representation {
  const rep = JSON.parse(json) as Representation;
  if (rep?.format !== "representation-v1" || !Array.isArray(rep.bins) || rep.bins.length !== rep.featurizer?.features?.length) {
    throw new MlInputError("stored representation is not valid (format representation-v1 expected)");
  }
  return rep;
}
