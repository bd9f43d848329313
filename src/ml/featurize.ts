/**
 * Featurizer: turns a Frame into the row-major float32 matrix the models train on.
 *
 * The spec is plain JSON, built once from training data and applied identically at training and
 * at inference. Rules:
 * - numeric columns: the value; missing = NaN; ±Infinity is clamped to ±FLOAT32_MAX (order is
 *   kept, and the float32 matrix never holds an infinity);
 * - boolean columns: 0 / 1;
 * - categorical columns: an integer code = index in the spec's stored `vocabulary` (the most
 *   frequent CATEGORY_LEVELS_PER_FEATURE values seen in training, by frequency). Mapping is BY
 *   STRING, so an inference file with its own dictionary codes maps correctly. Unseen, rare
 *   (outside the vocabulary) and missing values become NaN. Marked categorical for native splits.
 *   A column with more levels, each with CATEGORY_EXTRA_LEVEL_MIN_ROWS rows or more, gets further
 *   features `column.rare1`, `.rare2`, … holding the next levels by frequency (up to
 *   MAX_CATEGORY_LEVELS in all), NaN on the rows of every other level: the GBDT's bins stay one
 *   byte (its histograms, partitions and ONNX export are unchanged) and a large table's rare levels
 *   are learned instead of merged into missing;
 * - datetime columns: year, month (1-12), day of month, day of week (0 = Sunday), hour (only when
 *   not all zero), epoch days — all UTC, each kept only when not constant;
 * - dropped, each with a stated reason: the label, columns outside `inputColumns`, id-like
 *   columns, constant columns (all missing or a single value without missing), free text.
 * At inference, extra columns are ignored and absent ones are all missing; a column may arrive in
 * any storage (raw text included) and is read with ingestion's cell rules (./feature-source).
 */
import { CATEGORY_EXTRA_LEVEL_MIN_ROWS, CATEGORY_LEVELS_PER_FEATURE, MAX_CATEGORY_LEVELS } from "../core/limits";
import { COLUMN_DONE, type ColumnDone } from "./column-done";
import { MlInputError } from "./errors";
import { fillCategory, parseDictionary } from "./feature-source";
import type { Column, ColumnKind, Frame } from "./frame";

export const FLOAT32_MAX = 3.4028234663852886e38;

type FeatureTransform = "numeric" | "boolean" | "category" | "year" | "month" | "day" | "dayofweek" | "hour" | "epoch_days";

export interface FeatureDef {
  /** Output feature name (column name, or `column.part` for datetime parts). */
  name: string;
  /** Source column in the frame. */
  source: string;
  transform: FeatureTransform;
  /** Categories only: code i <=> vocabulary[i]. */
  vocabulary?: string[];
}

interface ColumnReport {
  name: string;
  kind: ColumnKind;
  used: boolean;
  /** Why the column was dropped (or a note when used, e.g. rare categories folded into missing). */
  reason?: string;
  /** Names of the features made from this column. */
  features: string[];
}

export interface FeaturizerSpec {
  format: "featurizer-v1";
  labelColumn: string | null;
  features: FeatureDef[];
  columns: ColumnReport[];
}

/** What a model needs to know about each feature. */
export type FeatureKind = { type: "numeric" } | { type: "categorical"; cardinality: number };

export interface FeatureMatrix {
  /** Row-major [numRows x numFeatures]. */
  data: Float32Array;
  numRows: number;
  numFeatures: number;
}

export interface BuildFeaturizerOptions {
  labelColumn?: string | null;
  inputColumns?: string[];
}

const DAY_MS = 86_400_000;

export function buildFeaturizer(frame: Frame, opts: BuildFeaturizerOptions = {}): FeaturizerSpec {
  const steps = buildFeaturizerSteps(frame, opts);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** The same, a `column` yield after each column described (a pass over its rows). */
export function* buildFeaturizerSteps(frame: Frame, opts: BuildFeaturizerOptions = {}): Generator<ColumnDone, FeaturizerSpec, void> {
  const label = opts.labelColumn ?? null;
  const inputs = opts.inputColumns ? new Set(opts.inputColumns) : null;
  const features: FeatureDef[] = [];
  const columns: ColumnReport[] = [];
  for (const col of frame.columns) {
    const report: ColumnReport = { name: col.name, kind: col.kind, used: false, features: [] };
    columns.push(report);
    let defs: FeatureDef[] = [];
    if (col.name === label) report.reason = "label column";
    else if (inputs && !inputs.has(col.name)) report.reason = "not in input_columns";
    else {
      const r = describeColumn(col, frame.rowCount);
      if (typeof r === "string") report.reason = r;
      else {
        defs = r.defs;
        if (r.note) report.reason = r.note;
      }
    }
    if (defs.length > 0) {
      report.used = true;
      report.features = defs.map((d) => d.name);
      features.push(...defs);
    }
    yield COLUMN_DONE;
  }
  return { format: "featurizer-v1", labelColumn: label, features, columns };
}

/** Feature definitions for one column, or the reason it is dropped. */
function describeColumn(col: Column, rowCount: number): { defs: FeatureDef[]; note?: string } | string {
  if (col.kind === "id") return "id-like column";
  if (col.kind === "text") return "free text is not used by this model";
  if (col.storage === "dictionary") {
    const counts = new Float64Array(col.dictionary.length);
    let present = 0;
    for (let i = 0; i < rowCount; i++) {
      const c = col.codes[i];
      if (c >= 0) {
        counts[c]++;
        present++;
      }
    }
    const used: number[] = [];
    for (let c = 0; c < counts.length; c++) if (counts[c] > 0) used.push(c);
    if (used.length === 0) return "constant column (all values missing)";
    if (used.length === 1 && present === rowCount) return "constant column (a single value)";
    if (present >= 20 && used.length >= 0.95 * present && used.length > 2) return "id-like column (almost every value is distinct)";
    used.sort((a, b) => counts[b] - counts[a] || (col.dictionary[a] < col.dictionary[b] ? -1 : 1));
    const kept = keptLevels(used, counts);
    const defs: FeatureDef[] = [];
    for (let start = 0; start < kept; start += CATEGORY_LEVELS_PER_FEATURE) {
      const part = start / CATEGORY_LEVELS_PER_FEATURE;
      const vocabulary = used.slice(start, Math.min(kept, start + CATEGORY_LEVELS_PER_FEATURE)).map((c) => col.dictionary[c]);
      defs.push({ name: part === 0 ? col.name : `${col.name}.rare${part}`, source: col.name, transform: "category", vocabulary });
    }
    const note =
      used.length > kept
        ? `${used.length} categories: the ${kept} most frequent are kept${defs.length > 1 ? ` (in ${defs.length} features)` : ""}, rarer ones count as missing`
        : undefined;
    return { defs, note };
  }
  const v = col.values;
  let min = Infinity;
  let max = -Infinity;
  let present = 0;
  for (let i = 0; i < rowCount; i++) {
    const x = v[i];
    if (x === x) {
      present++;
      if (x < min) min = x;
      if (x > max) max = x;
    }
  }
  if (present === 0) return "constant column (all values missing)";
  if (min === max && present === rowCount) return "constant column (a single value)";
  if (col.kind === "boolean") return { defs: [{ name: col.name, source: col.name, transform: "boolean" }] };
  if (col.kind === "numeric") return { defs: [{ name: col.name, source: col.name, transform: "numeric" }] };
  // datetime: keep the parts that vary
  const parts: FeatureTransform[] = ["year", "month", "day", "dayofweek", "hour", "epoch_days"];
  const defs: FeatureDef[] = [];
  for (const part of parts) {
    let first = NaN;
    let varies = false;
    for (let i = 0; i < rowCount && !varies; i++) {
      const x = v[i];
      if (x !== x) continue;
      const p = datePart(part, x);
      if (first !== first) first = p;
      else if (p !== first) varies = true;
    }
    if (varies || (part === "epoch_days" && present < rowCount)) {
      defs.push({ name: `${col.name}.${part}`, source: col.name, transform: part });
    }
  }
  if (defs.length === 0) return "constant column (a single date)";
  return { defs };
}

/**
 * How many of a category column's levels (`used`, by decreasing count) are kept: the first
 * feature's, then further levels while each has rows enough to be learned, up to the cap.
 */
function keptLevels(used: number[], counts: Float64Array): number {
  let kept = Math.min(used.length, CATEGORY_LEVELS_PER_FEATURE);
  while (kept < Math.min(used.length, MAX_CATEGORY_LEVELS) && counts[used[kept]] >= CATEGORY_EXTRA_LEVEL_MIN_ROWS) kept++;
  return kept;
}

/** Civil date parts from epoch milliseconds (UTC), without allocating Date objects. */
function datePart(part: FeatureTransform, ms: number): number {
  const days = Math.floor(ms / DAY_MS);
  switch (part) {
    case "epoch_days":
      return days;
    case "hour":
      return Math.floor((ms - days * DAY_MS) / 3_600_000);
    case "dayofweek":
      return (((days + 4) % 7) + 7) % 7;
    default: {
      // Howard Hinnant's civil_from_days
      const z = days + 719468;
      const era = Math.floor(z / 146097);
      const doe = z - era * 146097;
      const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
      const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
      const mp = Math.floor((5 * doy + 2) / 153);
      const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
      const m = mp < 10 ? mp + 3 : mp - 9;
      if (part === "day") return d;
      if (part === "month") return m;
      return yoe + era * 400 + (m <= 2 ? 1 : 0);
    }
  }
}

export function featureKinds(spec: FeaturizerSpec): FeatureKind[] {
  return spec.features.map((f) => (f.transform === "category" ? { type: "categorical", cardinality: f.vocabulary!.length } : { type: "numeric" }));
}

/**
 * MlInputError unless the spec has a feature: the message says why each column is unused (the
 * label, when given, is left out of that list).
 */
export function requireFeatures(spec: FeaturizerSpec, labelColumn: string | null = null): void {
  if (spec.features.length > 0) return;
  const why = spec.columns.filter((c) => c.name !== labelColumn).map((c) => `${c.name}: ${c.reason ?? "unused"}`);
  throw new MlInputError(`no usable feature columns${why.length ? ` (${why.join("; ")})` : ""}`);
}

/** A spec restricted to features whose source column passes `keep` (reports updated). */
export function selectFeatures(spec: FeaturizerSpec, keep: (source: string) => boolean, why = "not selected"): FeaturizerSpec {
  const features = spec.features.filter((f) => keep(f.source));
  const columns = spec.columns.map((c) => (c.used && !keep(c.name) ? { ...c, used: false, reason: why, features: [] } : { ...c }));
  return { ...spec, features, columns };
}

/**
 * The feature matrix of `frame`. Accepts ANY storage for any feature (see ./feature-source): at
 * inference the columns may arrive as raw text, or typed differently from training.
 */
export function applyFeaturizer(spec: FeaturizerSpec, frame: Frame): FeatureMatrix {
  const n = frame.rowCount;
  const F = spec.features.length;
  const data = new Float32Array(n * F);
  const fill = featureFiller(spec, frame);
  for (let j = 0; j < F; j++) fill(j, data, F, j);
  return { data, numRows: n, numFeatures: F };
}

/**
 * Fills feature j of every row of `frame` into `out` (out[i * stride + offset]; by default the
 * feature's own column: stride 1). One feature at a time: a large table can be binned feature by
 * feature without its whole float matrix (./prediction/data).
 */
export type FeatureFiller = (j: number, out: Float32Array, stride?: number, offset?: number) => void;

export function featureFiller(spec: FeaturizerSpec, frame: Frame): FeatureFiller {
  const n = frame.rowCount;
  const byName = new Map<string, Column>();
  for (const c of frame.columns) if (!byName.has(c.name)) byName.set(c.name, c);
  // per-distinct parsed values of a dictionary column, shared by the parts of one datetime
  const parsed = new Map<Column, Float64Array>();
  return (j, data, F = 1, at = 0) => {
    const def = spec.features[j];
    const col = byName.get(def.source);
    const t = def.transform;
    if (!col) {
      for (let i = 0; i < n; i++) data[i * F + at] = NaN;
    } else if (t === "category") {
      fillCategory(data, F, at, n, col, def.vocabulary!);
    } else if (col.storage === "dictionary") {
      const type = t === "numeric" || t === "boolean" ? t : "datetime";
      let values = parsed.get(col);
      if (!values) parsed.set(col, (values = parseDictionary(col.dictionary, type)));
      const table = type === "datetime" ? values.map((x) => (x === x ? datePart(t, x) : NaN)) : values;
      for (let i = 0; i < n; i++) {
        const c = col.codes[i];
        data[i * F + at] = c < 0 ? NaN : clampF32(table[c]);
      }
    } else {
      const v = col.values;
      if (t === "numeric" || t === "boolean") {
        for (let i = 0; i < n; i++) data[i * F + at] = clampF32(v[i]);
      } else {
        for (let i = 0; i < n; i++) {
          const x = v[i];
          data[i * F + at] = x === x ? clampF32(datePart(t, x)) : NaN;
        }
      }
    }
  };
}

function clampF32(x: number): number {
  return x > FLOAT32_MAX ? FLOAT32_MAX : Math.max(x, -FLOAT32_MAX);
}
