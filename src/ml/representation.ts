/**
 * The shared per-dataset representation: a column profile, a featurizer over every usable column
 * (no label chosen yet), the quantile bins of each of its features and a self-supervised encoder
 * over them (the `ssl` phase, ./ssl/encoder). Built once per dataset version and stored as JSON;
 * every later model on the same data derives its own featurizer (label and non-input columns
 * removed) and reuses the bins instead of binning again, and the embedding-based models (embedding,
 * clustering, search, anomaly) reuse the encoder instead of training one.
 *
 * Stored form: `JSON.stringify(rep)` (plain JSON; the encoder's weights are one base64 string),
 * read back with `parseRepresentation`, which returns null for anything it cannot use (an older
 * format such as representation-v1, a damaged file): the caller then builds a new one.
 */
import type { ColumnKind, Frame } from "./frame";
import { applyFeaturizer, buildFeaturizer, featureKinds, selectFeatures, type FeaturizerSpec } from "./featurize";
import { computeBins, type FeatureBins } from "./gbdt/bins";
import { encodeRows, parseEncoder, planEncoder, trainEncoderSteps, type SslEncoder, type SslStep } from "./ssl/encoder";

const PROFILE_SAMPLE = 100_000;

export const REPRESENTATION_FORMAT = "representation-v2";

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
  format: typeof REPRESENTATION_FORMAT;
  rowCount: number;
  profile: ColumnProfile[];
  featurizer: FeaturizerSpec;
  /** bins[i] belongs to featurizer.features[i]. */
  bins: FeatureBins[];
  /**
   * Encoder over the featurizer's matrix (applyFeaturizer(featurizer, frame)); null when there is
   * nothing to encode (no usable column, or fewer than 2 rows).
   */
  encoder: SslEncoder | null;
}

export interface BuildRepresentationOptions {
  /** Seed of the bin sample (above 200k rows) and of the encoder. */
  seed?: number;
  maxBins?: number;
}

/** One step of the encoder's training, as the training job reports it. */
export type RepresentationStep = { phase: "ssl" } & SslStep;

/** Build synchronously: drives {@link buildRepresentationSteps} to the end. */
export function buildRepresentation(frame: Frame, opts: BuildRepresentationOptions = {}): Representation {
  const steps = buildRepresentationSteps(frame, opts);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * Build the representation step by step: profile, featurizer and bins first (no yield), then one
 * yield per encoder training step ({@link plannedSslSteps} of them), then the result.
 */
export function* buildRepresentationSteps(frame: Frame, opts: BuildRepresentationOptions = {}): Generator<RepresentationStep, Representation, void> {
  const seed = opts.seed ?? 0;
  const featurizer = buildFeaturizer(frame, { labelColumn: null });
  const m = applyFeaturizer(featurizer, frame);
  const isCat = featureKinds(featurizer).map((k) => k.type === "categorical");
  const bins = computeBins(m.data, m.numRows, m.numFeatures, isCat, { seed, maxBins: opts.maxBins });
  const profile = profileFrame(frame);
  let encoder: SslEncoder | null = null;
  if (planEncoder(frame.rowCount, featurizer)) {
    const ssl = trainEncoderSteps(featurizer, m, { seed });
    for (;;) {
      const r = ssl.next();
      if (r.done) {
        encoder = r.value;
        break;
      }
      yield { phase: "ssl", ...r.value };
    }
  }
  return { format: REPRESENTATION_FORMAT, rowCount: frame.rowCount, profile, featurizer, bins, encoder };
}

/** Encoder steps building the representation of `frame` will take (0 when there is nothing to encode). */
export function plannedSslSteps(frame: Frame): number {
  return plannedSslStepsFor(frame.rowCount, buildFeaturizer(frame, { labelColumn: null }));
}

/** Same, from the row count and the representation featurizer (buildFeaturizer(frame, { labelColumn: null })). */
export function plannedSslStepsFor(rowCount: number, featurizer: FeaturizerSpec): number {
  return planEncoder(rowCount, featurizer)?.steps ?? 0;
}

/**
 * Embeddings of a frame's rows with the representation's encoder: row-major
 * [frame.rowCount x encoder.embedding], or null when the representation has no encoder. The
 * frame may be any table with the dataset's columns (absent ones count as missing).
 */
export function encodeFrame(rep: Representation, frame: Frame): Float32Array | null {
  if (!rep.encoder) return null;
  const m = applyFeaturizer(rep.featurizer, frame);
  return encodeRows(rep.encoder, m.data, m.numRows);
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

/**
 * A stored representation (its JSON text, or that text already parsed) if this engine can use
 * it, else null: another format (representation-v1 has no encoder), inconsistent parts, or text
 * that is not JSON. A null means "not cached": build it again.
 */
export function parseRepresentation(json: unknown): Representation | null {
  let rep: Representation;
  try {
    rep = (typeof json === "string" ? JSON.parse(json) : json) as Representation;
  } catch {
    return null;
  }
  if (!rep || typeof rep !== "object" || rep.format !== REPRESENTATION_FORMAT) return null;
  const features = rep.featurizer?.features;
  if (!Array.isArray(features) || !Array.isArray(rep.bins) || rep.bins.length !== features.length) return null;
  if (!Array.isArray(rep.profile) || !Number.isInteger(rep.rowCount)) return null;
  if (rep.encoder !== null) {
    if (!parseEncoder(rep.encoder) || rep.encoder.numFeatures !== features.length) return null;
  }
  return rep;
}
