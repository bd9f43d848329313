/**
 * What the rows of one explainPrediction call share (./explain-prediction): the model's input
 * columns (features summed back to their source column), class labels, the flip search, and the
 * regression flip's default delta.
 */
import type { FeaturizerSpec } from "../featurize";
import type { Frame } from "../frame";
import type { GbdtModel } from "../gbdt/model";
import { FlipSearch } from "./flip-search";
import { columnType, type InputColumn, mapColumns } from "./input-columns";

export { type CellValue, cellOf, type InputColumn, subFrame } from "./input-columns";

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
  const { columns, columnOf } = mapColumns(featurizer, frame);
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

/** Σ over trees of the cover-weighted std of the leaf values: roughly the std of the fitted output. */
function outputSpread(model: GbdtModel): number {
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
