/**
 * The shared per-dataset representation: a column profile, a featurizer over every usable column
 * (no label chosen yet), the quantile bins of each of its features, the standardization layout of
 * those features, and a self-supervised encoder over them (the `ssl` phase, ../ssl/encoder). Built
 * once per dataset version and stored as JSON; every later model on the same data derives its own
 * featurizer (label and non-input columns removed) and reuses the bins instead of binning again,
 * and the embedding-based models (embedding, search, a blended anomaly score, clustering in
 * embedding space) reuse the encoder instead of training one. The profile covers every row; the
 * bins, the layout and the encoder are fitted on a seeded sample of at most SAMPLE_ROWS rows.
 *
 * The encoder is most of the build's time and only the embedding-based models read it, so it is
 * trained when the first of those needs it ({@link addEncoderSteps}), not with the rest: a
 * prediction or causal model on fresh data does not wait for it. Added later, it is the very
 * encoder an eager build gives (same sample, same seed).
 *
 * Stored form: `JSON.stringify(rep)` (plain JSON; the encoder's weights are one base64 string),
 * read back with `parseRepresentation`, which returns null for anything it cannot use (an older
 * format such as representation-v1, a representation-v3 whose featurizer capped a category that
 * this one may keep more levels of, a damaged file): the caller then builds a new one.
 *
 * It sits in a folder of its own, above the algorithms it combines (../gbdt/bins, ../ssl/encoder,
 * ../profile) and below everything that models on it (ml/prediction, ml/fit, ml/space, ml/causal).
 */

import { CATEGORY_LEVELS_PER_FEATURE } from "../../core/limits";
import { COLUMN_DONE, type ColumnDone } from "../column-done";
import {
  applyFeaturizer,
  buildFeaturizer,
  buildFeaturizerSteps,
  type FeatureMatrix,
  type FeaturizerSpec,
  featureKinds,
  selectFeatures,
} from "../featurize";
import { type Frame, pickRows } from "../frame";
import { binSampleRows, computeBins, type FeatureBins } from "../gbdt/bins";
import { type ColumnProfile, profileColumn } from "../profile";
import { parseEncoder, planEncoder, type SslEncoder, type SslStep, trainEncoderSteps } from "../ssl/encoder";
import { describeFeatures, type SslFeature } from "../ssl/layout";

const REPRESENTATION_FORMAT = "representation-v4";
/**
 * The format before a category's levels past the first 254 had features of their own
 * (`column.rare1`, ../featurize): read as this one unless it capped such a category.
 */
const ONE_FEATURE_CATEGORY_FORMAT = "representation-v3";
/** The format before the layout had a field of its own (the encoder was always built): read and upgraded. */
const EAGER_ENCODER_FORMAT = "representation-v2";

export interface Representation {
  format: typeof REPRESENTATION_FORMAT;
  rowCount: number;
  /** Seed of the row sample and of the encoder: an encoder added later uses it again. */
  seed: number;
  profile: ColumnProfile[];
  featurizer: FeaturizerSpec;
  /** bins[i] belongs to featurizer.features[i]. */
  bins: FeatureBins[];
  /**
   * Per featurizer feature, its standardization or its one-hot levels (the encoder's input and
   * the standardized space); null when there is nothing to encode (no usable column, or fewer
   * than 2 rows).
   */
  layout: SslFeature[] | null;
  /**
   * Encoder over the featurizer's matrix (applyFeaturizer(featurizer, frame)); null until a model
   * that reads it has trained it ({@link lacksEncoder}), or when the layout is null.
   */
  encoder: SslEncoder | null;
}

/**
 * Rows the bins and the encoder are fitted on, at most: a seeded sample above it. The bins'
 * quantiles need no more (computeBins' own sample), and the encoder sees at most 384k rows drawn
 * with replacement (../ssl/encoder planEncoder) whatever the table's size.
 * @internal exported for its unit test (test/ml/representation-sample.test.ts)
 */
export const SAMPLE_ROWS = 200_000;

export interface BuildRepresentationOptions {
  /** Seed of the row sample (above SAMPLE_ROWS rows) and of the encoder. */
  seed?: number;
  maxBins?: number;
  /**
   * The table's featurizer without a label (buildFeaturizer(frame, { labelColumn: null })) when the
   * caller has built it already, to check the data before the build: spares a second pass over
   * every column (seconds a column on tens of millions of rows).
   */
  featurizer?: FeaturizerSpec;
  /**
   * Train the encoder now (the default), or leave it to {@link addEncoderSteps} (false: what a
   * model that never reads it builds; on small tables the encoder is most of the build's time).
   */
  encoder?: boolean;
}

/**
 * One step of the build: an encoder training step, as the training job reports it, or one column
 * of the table profiled (no step to count, but on tens of millions of rows a column takes seconds:
 * a point where the job can send its heartbeat).
 */
export type RepresentationStep = ({ phase: "ssl" } & SslStep) | ColumnDone;

/** Build synchronously: drives {@link buildRepresentationSteps} to the end. */
export function buildRepresentation(frame: Frame, opts: BuildRepresentationOptions = {}): Representation {
  const steps = buildRepresentationSteps(frame, opts);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * Build the representation step by step: featurizer, bins, layout and profile first (a `column`
 * yield per profiled column), then, unless `encoder: false`, one `ssl` yield per encoder training
 * step ({@link plannedSslSteps} of them), then the result.
 */
export function* buildRepresentationSteps(frame: Frame, opts: BuildRepresentationOptions = {}): Generator<RepresentationStep, Representation, void> {
  const seed = opts.seed ?? 0;
  const featurizer = opts.featurizer ?? (yield* buildFeaturizerSteps(frame, { labelColumn: null }));
  const m = sampleMatrix(frame, featurizer, seed);
  const isCat = featureKinds(featurizer).map((k) => k.type === "categorical");
  const bins = computeBins(m.data, m.numRows, m.numFeatures, isCat, { seed, maxBins: opts.maxBins, sampleSize: SAMPLE_ROWS });
  const profile: ColumnProfile[] = [];
  for (const column of frame.columns) {
    profile.push(profileColumn(column));
    yield COLUMN_DONE;
  }
  // the encoder's own statistics of the same matrix (trainEncoderSteps computes them alike)
  const layout = planEncoder(m.numRows, featurizer) ? describeFeatures(featurizer, m.data, m.numRows) : null;
  const rep: Representation = { format: REPRESENTATION_FORMAT, rowCount: frame.rowCount, seed, profile, featurizer, bins, layout, encoder: null };
  if (opts.encoder === false || !layout) return rep;
  return { ...rep, encoder: yield* trainSharedEncoder(featurizer, m, seed) };
}

/** Whether `rep` has something to encode and no encoder yet: a model that reads it adds it first. */
export function lacksEncoder(rep: Representation): boolean {
  return rep.layout !== null && rep.encoder === null;
}

/**
 * `rep` with its encoder, trained on `frame` (the table `rep` was built from) as an eager build
 * would have trained it: one yield per step, as {@link buildRepresentationSteps}.
 */
export function* addEncoderSteps(frame: Frame, rep: Representation): Generator<RepresentationStep, Representation, void> {
  if (!lacksEncoder(rep)) return rep;
  const m = sampleMatrix(frame, rep.featurizer, rep.seed);
  return { ...rep, encoder: yield* trainSharedEncoder(rep.featurizer, m, rep.seed) };
}

/**
 * The featurized matrix the bins, the layout and the encoder are fitted on: a seeded sample of at
 * most SAMPLE_ROWS rows, the very rows computeBins would sample, so the bins are the same as from
 * the whole table's matrix, which is never built (on 20M rows it would take 64 bytes a row per 16
 * features).
 */
function sampleMatrix(frame: Frame, featurizer: FeaturizerSpec, seed: number): FeatureMatrix {
  const sample = frame.rowCount > SAMPLE_ROWS ? pickRows(frame, binSampleRows(frame.rowCount, SAMPLE_ROWS, seed)) : frame;
  return applyFeaturizer(featurizer, sample);
}

function* trainSharedEncoder(featurizer: FeaturizerSpec, m: FeatureMatrix, seed: number): Generator<RepresentationStep, SslEncoder, void> {
  const ssl = trainEncoderSteps(featurizer, m, { seed });
  for (;;) {
    const r = ssl.next();
    if (r.done) return r.value;
    yield { phase: "ssl", ...r.value };
  }
}

/** Encoder steps building the representation of `frame` will take (0 when there is nothing to encode). */
export function plannedSslSteps(frame: Frame): number {
  return plannedSslStepsFor(frame.rowCount, buildFeaturizer(frame, { labelColumn: null }));
}

/** Same, from the row count and the representation featurizer (buildFeaturizer(frame, { labelColumn: null })). */
function plannedSslStepsFor(rowCount: number, featurizer: FeaturizerSpec): number {
  return planEncoder(Math.min(rowCount, SAMPLE_ROWS), featurizer)?.steps ?? 0;
}

/** The featurizer and bins of one model: the representation minus the label and non-inputs. */
export function deriveModelFeatures(
  rep: Representation,
  labelColumn: string,
  inputColumns?: string[],
): { featurizer: FeaturizerSpec; bins: FeatureBins[] } {
  const spec = modelFeaturizer(rep.featurizer, labelColumn, inputColumns);
  const index = new Map(rep.featurizer.features.map((f, i) => [f.name, i]));
  const bins = spec.features.map((f) => rep.bins[index.get(f.name)!]);
  return { featurizer: spec, bins };
}

/**
 * The featurizer of one model, from the table's featurizer without a label: its label and
 * non-input columns removed. Columns are described one by one, so this is what
 * buildFeaturizer(frame, { labelColumn, inputColumns }) would give, without a pass over the rows.
 */
export function modelFeaturizer(tableFeaturizer: FeaturizerSpec, labelColumn: string | null, inputColumns?: string[]): FeaturizerSpec {
  const inputs = inputColumns ? new Set(inputColumns) : null;
  let spec = selectFeatures(tableFeaturizer, (src) => src !== labelColumn, "label column");
  if (inputs) spec = selectFeatures(spec, (src) => inputs.has(src), "not in input_columns");
  spec = {
    ...spec,
    labelColumn,
    columns: spec.columns.map((c) =>
      c.name === labelColumn
        ? { ...c, used: false, reason: "label column", features: [] }
        : inputs && !inputs.has(c.name) && !c.used
          ? { ...c, reason: "not in input_columns" }
          : c,
    ),
  };
  return spec;
}

/**
 * Whether an older representation's featurizer kept only the first feature's levels of a column
 * with more (built again, the column may get further features).
 */
function cappedCategory(rep: Representation): boolean {
  const profile = Array.isArray(rep.profile) ? rep.profile : [];
  const distinct = new Map(profile.map((p) => [p?.name, p?.distinct_count]));
  return (rep.featurizer?.features ?? []).some((f) => f.transform === "category" && (distinct.get(f.source) ?? 0) > CATEGORY_LEVELS_PER_FEATURE);
}

/** The stored form of a representation (JSON text): what parseRepresentation reads back. */
export function serializeRepresentation(rep: Representation): string {
  return JSON.stringify(rep);
}

/**
 * A stored representation (its JSON text, or that text already parsed) if this engine can use
 * it, else null: another format (representation-v1 has no encoder), inconsistent parts, or text
 * that is not JSON. A null means "not cached": build it again. A representation-v2 (the encoder
 * always built, the layout only inside it) is read as this format.
 */
export function parseRepresentation(json: unknown): Representation | null {
  let rep: Representation;
  try {
    rep = (typeof json === "string" ? JSON.parse(json) : json) as Representation;
  } catch {
    return null;
  }
  if (!rep || typeof rep !== "object") return null;
  if ((rep.format as string) === EAGER_ENCODER_FORMAT) {
    const encoder = rep.encoder as SslEncoder | null;
    // v2's fixed seed was 0; its encoder, when there was something to encode, is always there
    rep = { ...rep, format: ONE_FEATURE_CATEGORY_FORMAT as typeof REPRESENTATION_FORMAT, seed: 0, layout: encoder?.features ?? null };
  }
  if ((rep.format as string) === ONE_FEATURE_CATEGORY_FORMAT) {
    if (cappedCategory(rep)) return null;
    rep = { ...rep, format: REPRESENTATION_FORMAT };
  }
  if (rep.format !== REPRESENTATION_FORMAT || !Number.isInteger(rep.seed)) return null;
  const features = rep.featurizer?.features;
  if (!Array.isArray(features) || !Array.isArray(rep.bins) || rep.bins.length !== features.length) return null;
  if (!Array.isArray(rep.profile) || !Number.isInteger(rep.rowCount)) return null;
  if (rep.layout !== null && (!Array.isArray(rep.layout) || rep.layout.length !== features.length)) return null;
  if (rep.encoder !== null) {
    if (!rep.layout || !parseEncoder(rep.encoder) || rep.encoder.numFeatures !== features.length) return null;
  }
  return rep;
}
