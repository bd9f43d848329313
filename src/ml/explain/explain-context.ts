/**
 * What the rows of one explainPrediction call share (./explain-prediction): the model's input
 * columns (features summed back to their source column), class labels, the flip search, and the
 * regression flip's default delta.
 */
import type { FeatureDef, FeaturizerSpec } from "../featurize";
import type { Column, Frame } from "../frame";
import { cellValue } from "../frame";
import type { GbdtModel } from "../gbdt/model";
import { FlipSearch } from "./flip-search";

export type CellValue = string | number | boolean | null;

export type ColumnType = "numeric" | "boolean" | "category" | "datetime";

export interface InputColumn {
  name: string;
  /** The frame's column (absent: every value missing). */
  column: Column | undefined;
  type: ColumnType;
}

/** Everything shared by the rows of one call. */
export interface ExplainContext {
  model: GbdtModel;
  featurizer: FeaturizerSpec;
  labelColumn: string;
  columns: InputColumn[];
  /** Feature index -> index in `columns`. */
  columnOf: Int32Array;
  classes: string[];
  search: FlipSearch;
  /** Flip search order: plain features first, then datetime parts. */
  plainFeatures: number[];
  derivedFeatures: number[];
  /** Regression: the model's typical spread (see outputSpread). */
  spread: number;
  hasSplits: boolean;
}

export function buildContext(
  model: GbdtModel,
  featurizer: FeaturizerSpec,
  classes: string[] | null,
  labelColumn: string,
  frame: Frame,
): ExplainContext {
  const defs = featurizer.features;
  const byName = new Map<string, Column>();
  for (const c of frame.columns) if (!byName.has(c.name)) byName.set(c.name, c);
  const columns: InputColumn[] = [];
  const index = new Map<string, number>();
  const columnOf = new Int32Array(defs.length);
  defs.forEach((d, f) => {
    let j = index.get(d.source);
    if (j === undefined) {
      j = columns.length;
      index.set(d.source, j);
      columns.push({ name: d.source, column: byName.get(d.source), type: columnType(d) });
    }
    columnOf[f] = j;
  });
  const hasSplits = model.trees.some((t) => t.splitFeature.length > 0);
  const plainFeatures: number[] = [];
  const derivedFeatures: number[] = [];
  defs.forEach((d, f) => (columnType(d) === "datetime" ? derivedFeatures : plainFeatures).push(f));
  const labels = classes ?? model.classes ?? Array.from({ length: model.objective === "binary" ? 2 : model.numOutputs }, (_, k) => String(k));
  return {
    model,
    featurizer,
    labelColumn,
    columns,
    columnOf,
    classes: labels,
    search: new FlipSearch(model),
    plainFeatures,
    derivedFeatures,
    spread: model.objective === "regression" ? outputSpread(model) : 0,
    hasSplits,
  };
}

function columnType(d: FeatureDef): ColumnType {
  if (d.transform === "category" || d.transform === "numeric" || d.transform === "boolean") return d.transform;
  return "datetime";
}

/** The frame restricted to `rows` and the model's input columns (featurized once, in row order). */
export function subFrame(rows: number[], columns: InputColumn[]): Frame {
  const out: Column[] = [];
  for (const { column: c } of columns) {
    if (!c) continue;
    if (c.storage === "dictionary") out.push({ ...c, codes: Int32Array.from(rows, (r) => c.codes[r]) });
    else out.push({ ...c, values: Float64Array.from(rows, (r) => c.values[r]) });
  }
  return { rowCount: rows.length, columns: out };
}

/** The cell as written; non-finite numbers as text (JSON would turn them into null). */
export function cellOf(c: InputColumn, row: number): CellValue {
  if (!c.column) return null;
  const v = cellValue(c.column, row);
  return typeof v === "number" && !Number.isFinite(v) ? String(v) : v;
}

/** Σ over trees of the cover-weighted std of the leaf values: roughly the std of the fitted output. */
export function outputSpread(model: GbdtModel): number {
  let s = 0;
  for (const t of model.trees) {
    let w = 0;
    let mean = 0;
    for (let i = 0; i < t.leafValue.length; i++) {
      w += t.leafCover[i];
      mean += t.leafCover[i] * t.leafValue[i];
    }
    if (!(w > 0)) continue;
    mean /= w;
    let v = 0;
    for (let i = 0; i < t.leafValue.length; i++) v += t.leafCover[i] * (t.leafValue[i] - mean) ** 2;
    s += Math.sqrt(v / w);
  }
  return s;
}

/** Default regression delta: 10% of |prediction|, kept within [spread / 4, spread], rounded up to 2 significant digits. */
export function defaultDelta(prediction: number, spread: number): number {
  let d = 0.1 * Math.abs(prediction);
  if (spread > 0) d = Math.min(Math.max(d, 0.25 * spread), spread);
  if (!(d > 0)) return 1;
  // rounded up to 2 significant digits, so the text states it exactly
  const unit = 10 ** (Math.floor(Math.log10(d)) - 1);
  return Number((Math.ceil(d / unit) * unit).toPrecision(12));
}
