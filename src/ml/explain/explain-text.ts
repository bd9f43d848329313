/**
 * The words of a row explanation (./explain-prediction): the output's scale, the gloss of the
 * numbers, and cell values as they read in a sentence.
 */
import type { RowPrediction } from "./evaluate";
import type { CellValue, ExplainContext, InputColumn } from "./explain-context";
import { formatDate, formatNumber, formatPercent } from "./explain-format";

export function outputScale(ctx: ExplainContext, pred: RowPrediction): string {
  const { model, classes } = ctx;
  if (model.objective === "regression") return `units of ${ctx.labelColumn}`;
  if (model.objective === "binary") return `log-odds of '${classes[1]}'`;
  return `log-odds (softmax score) of class '${classes[pred.value]}'`;
}

export function gloss(ctx: ExplainContext, pred: RowPrediction, base: number, raw: number): string {
  const { model, classes } = ctx;
  const b = formatNumber(base);
  const s = formatNumber(raw);
  if (model.objective === "regression") {
    return `Contributions are in units of ${ctx.labelColumn}; they add to the base value ${b} (the model's average prediction over its training data) to give the prediction ${s}.`;
  }
  if (model.objective === "binary") {
    return `Contributions are in log-odds of '${classes[1]}'; they add to the base value ${b} (the model's average score over its training data) to give the model's score ${s} (probability of '${classes[1]}' ${formatPercent(pred.probabilities![1])}).`;
  }
  const c = classes[pred.value];
  return `Contributions are in the model's score for class '${c}' (log-odds before the softmax over the ${classes.length} classes); they add to the base value ${b} (that score's average over the training data) to give this row's score ${s}, which the softmax turns into a probability of ${formatPercent(pred.probabilities![pred.value])} for '${c}'.`;
}

/** A cell for text: numbers to 4 significant digits, categories quoted (unless `quote` is false), dates without midnight. */
export function valueText(c: InputColumn, v: CellValue, quote = true): string {
  if (v === null) return "missing";
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number") return formatNumber(v);
  if (c.type === "datetime") return formatDate(v);
  if (c.type !== "category") {
    const n = Number(v.trim());
    if (v.trim() !== "" && Number.isFinite(n)) return formatNumber(n);
  }
  return quote ? `'${v}'` : v;
}
