/**
 * Per-row explanation of a prediction model (GBDT), as an `infer_explain` job returns it:
 * exact TreeSHAP contributions summed back to the input columns, the smallest one-column change
 * that changes the prediction, and plain-language text.
 *
 * - Explained output (its raw scale): binary = log-odds of the positive class (classes[1]),
 *   whichever class is predicted; multiclass = the PREDICTED class's softmax score; regression =
 *   the prediction. base_value + Σ contributions = that raw output.
 * - A column that gives several features (datetime parts) gets the sum of their contributions.
 * - Flip: searched first among the features that map back to one readable value of their column
 *   (numeric, boolean, categorical); datetime parts are tried only when none of those flips, and
 *   `to` then describes the part ("month 7", "Wednesday", "2021-03-04" for the epoch day); a
 *   numeric `to` is a readable number just across the crossed threshold (./readable-flip). The
 *   search is ./flip-search (./flip's ranking, fast); ./flip itself is the fallback.
 * - Regression flip: the prediction must move by delta = 10% of |prediction|, kept between a
 *   quarter of and the whole of the model's typical spread (Σ over trees of the cover-weighted
 *   std of leaf values: roughly the std of the fitted values), rounded up to 2 significant
 *   digits; the text states it. `opts.regressionDelta` overrides.
 *
 * One featurization and one TreeShapExplainer (per explained class) serve all rows.
 */
import type { FeaturizerSpec } from "../featurize";
import { applyFeaturizer } from "../featurize";
import type { Frame } from "../frame";
import type { GbdtModel } from "../gbdt/model";
import type { Task } from "../label";
import { predictRow, type RowPrediction } from "./evaluate";
import { buildContext, type CellValue, cellOf, defaultDelta, type ExplainContext, subFrame } from "./explain-context";
import { formatExact, formatNumber, formatPercent, formatSigned } from "./explain-format";
import { gloss, outputScale, valueText } from "./explain-text";
import { predictionFlip } from "./flip";
import { type Flip, intervalOf, readableFlip } from "./readable-flip";
import { TreeShapExplainer } from "./treeshap";

export interface ExplainSpec {
  featurizer: FeaturizerSpec;
  task: Task;
  /** Class labels in model output order (classification). */
  classes: string[] | null;
  labelColumn: string;
}

export interface ColumnContribution {
  /** The input column (derived features' contributions summed back to it). */
  column: string;
  /** The row's value of that column as written (null when missing). */
  value: CellValue;
  /** On the explained output's raw scale. */
  contribution: number;
}

export interface RowExplanation {
  /** Every input column of the model, by |contribution| descending (ties: column name). */
  feature_contributions: ColumnContribution[];
  /** Expected raw output; base_value + Σ contributions = the raw output. */
  base_value: number;
  output_scale: string;
  prediction: string | number;
  /** Classification: probability of the predicted class. */
  probability: number | null;
  prediction_flip: {
    column: string;
    from: CellValue;
    to: CellValue;
    new_prediction: string | number;
    new_probability: number | null;
  } | null;
  /** Why prediction_flip is null. */
  flip_reason: string | null;
  explanation_text: string;
  explanation_label: string;
  explanation_gloss: string;
}

export interface ExplainOptions {
  /** Regression: the move of the prediction a flip must make (default: see the module doc). */
  regressionDelta?: number;
}

export function explainPrediction(model: GbdtModel, spec: ExplainSpec, frame: Frame, rows: number[], opts: ExplainOptions = {}): RowExplanation[] {
  const defs = spec.featurizer.features;
  const F = defs.length;
  if (model.numFeatures !== F) throw new Error(`explainPrediction: the model has ${model.numFeatures} features, the featurizer ${F}`);
  if ((spec.task === "regression") !== (model.objective === "regression")) {
    throw new Error(`explainPrediction: task ${spec.task} does not match the model's objective ${model.objective}`);
  }
  for (const r of rows) {
    if (!Number.isInteger(r) || r < 0 || r >= frame.rowCount)
      throw new RangeError(`explainPrediction: row ${r} is not in the frame (${frame.rowCount} rows)`);
  }
  if (opts.regressionDelta !== undefined && !(opts.regressionDelta > 0)) throw new RangeError("explainPrediction: regressionDelta must be > 0");

  const ctx = buildContext(model, spec.featurizer, spec.classes, spec.labelColumn, frame);
  const m = applyFeaturizer(spec.featurizer, subFrame(rows, ctx.columns));
  // Only one output is explained: multiclass gets one explainer per class, built on that class's trees.
  const explainers = new Map<number, TreeShapExplainer>();
  const explainerOf = (k: number): TreeShapExplainer => {
    let e = explainers.get(k);
    if (!e) explainers.set(k, (e = new TreeShapExplainer(model.numOutputs === 1 ? model : outputModel(model, k))));
    return e;
  };
  const phi = new Float64Array(F);
  const perColumn = new Float64Array(ctx.columns.length);
  return rows.map((r, i) => {
    const x = m.data.subarray(i * F, (i + 1) * F);
    const pred = predictRow(model, x);
    const k = model.objective === "multiclass" ? pred.value : 0;
    const explainer = explainerOf(k);
    phi.fill(0);
    explainer.explainInto(x, phi);
    perColumn.fill(0);
    for (let f = 0; f < F; f++) perColumn[ctx.columnOf[f]] += phi[f];
    const contributions: ColumnContribution[] = ctx.columns.map((c, j) => ({ column: c.name, value: cellOf(c, r), contribution: perColumn[j] }));
    contributions.sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution) || (a.column < b.column ? -1 : a.column > b.column ? 1 : 0));
    return explainRow(ctx, r, x, pred, contributions, explainer.expectedValue[0], opts);
  });
}

/** The single-output model of output k's trees (same features): its TreeSHAP is output k's. */
function outputModel(model: GbdtModel, k: number): GbdtModel {
  const K = model.numOutputs;
  return { ...model, numOutputs: 1, baseScore: [model.baseScore[k]], trees: model.trees.filter((_t, i) => i % K === k) };
}

function explainRow(
  ctx: ExplainContext,
  row: number,
  x: Float32Array,
  pred: RowPrediction,
  contributions: ColumnContribution[],
  base: number,
  opts: ExplainOptions,
): RowExplanation {
  const { model } = ctx;
  const regression = model.objective === "regression";
  const k = model.objective === "multiclass" ? pred.value : 0;
  const raw = pred.raw[k];
  const prediction = regression ? pred.value : ctx.classes[pred.value];
  const probability = regression ? null : pred.probabilities![pred.value];
  const delta = regression ? (opts.regressionDelta ?? defaultDelta(pred.value, ctx.spread)) : 0;

  // Flip: plain features first, datetime parts only when none of those flips.
  let flip: Flip | null = null;
  if (ctx.hasSplits) {
    const options = regression ? { delta } : {};
    for (const features of [ctx.plainFeatures, ctx.derivedFeatures]) {
      if (features.length === 0) continue;
      const found = ctx.search.find(x, pred.raw, { ...options, features });
      if (!found) continue;
      flip = readableFlip(ctx, row, x, pred, found, delta);
      if (!flip) {
        // The fast search's summation order disagreed with the model's at the very edge of a
        // flip (never seen): take the plain search's answer for this row.
        const slow = predictionFlip(model, x, { ...options, features });
        const t = slow && ctx.search.thresholds[slow.feature];
        if (slow && t) flip = readableFlip(ctx, row, x, pred, { feature: slow.feature, to: slow.to, ...intervalOf(t, slow.to) }, delta);
      }
      break;
    }
  }
  let flipReason: string | null = null;
  if (!flip) {
    if (!ctx.hasSplits) flipReason = "the model does not depend on any column (it has no splits), so no change alters the prediction";
    else if (regression) flipReason = `no single-column change moves the prediction by ${formatExact(delta)} or more`;
    else flipReason = "no single-column change alters the predicted class";
  }

  // Columns pushing toward the prediction: binary explains the positive class's log-odds, so a
  // predicted negative class is pushed by negative contributions; regression: away from the base.
  const dir = regression ? (raw >= base ? 1 : -1) : model.objective === "binary" && pred.value === 0 ? -1 : 1;
  const total = contributions.reduce((s, c) => s + Math.abs(c.contribution), 0);
  const eps = 1e-12 * (1 + total);
  const toward = contributions.filter((c) => dir * c.contribution > eps).slice(0, 2);
  const columnByName = new Map(ctx.columns.map((c) => [c.name, c]));
  const driverText = (c: ColumnContribution) => {
    const text = `${c.column} is ${valueText(columnByName.get(c.column)!, c.value)}`;
    return regression ? `${text} (${formatSigned(c.contribution)})` : text;
  };
  const because = toward.length ? `mainly because ${toward.map(driverText).join(" and ")}` : null;

  let text: string;
  if (regression) {
    const side = raw > base ? "above" : raw < base ? "below" : "at";
    text = `Predicted ${formatNumber(pred.value)}, ${side} the average of ${formatNumber(base)}`;
    text += because ? `, ${because}` : ": none of this row's values moves it much";
  } else {
    const label = `'${prediction}' (${formatPercent(probability!)})`;
    text = because
      ? `Predicted ${label} ${because}`
      : `Predicted ${label} from the model's baseline alone: none of this row's values pushes toward it`;
  }
  if (flip) {
    if (regression) {
      const moved = flip.pred.value;
      text += `; ${flip.phrase} it would be ${formatNumber(moved)} (the smallest one-column change that moves the prediction by at least ${formatExact(delta)})`;
    } else text += `; ${flip.phrase} it would be '${ctx.classes[flip.pred.value]}'`;
  }
  text += ".";

  const main = toward[0] ?? contributions[0];
  const explanationLabel = main ? `${main.column}=${valueText(columnByName.get(main.column)!, main.value, false)}` : "baseline";

  return {
    feature_contributions: contributions,
    base_value: base,
    output_scale: outputScale(ctx, pred),
    prediction,
    probability,
    prediction_flip: flip && {
      column: flip.column.name,
      from: flip.from,
      to: flip.to,
      new_prediction: regression ? flip.pred.value : ctx.classes[flip.pred.value],
      new_probability: regression ? null : flip.pred.probabilities![flip.pred.value],
    },
    flip_reason: flipReason,
    explanation_text: text,
    explanation_label: explanationLabel,
    explanation_gloss: gloss(ctx, pred, base, raw),
  };
}
