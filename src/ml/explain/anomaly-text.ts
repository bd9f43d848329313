/**
 * The words of an anomaly explanation (./explain-anomaly): "This row is unusual (anomaly score
 * 0.71, above the threshold 0.62) mainly because amount is 9,400 (typical: 20–300) and country
 * is 'XX' (0.2% of training rows); with amount of 310 it would not be flagged." The drivers are
 * the columns that raise the score; each says what is typical of it in the training data: the
 * p5–p95 range of a number, how rare a category is (only when under 10% of the rows).
 */
import type { FeaturizerSpec } from "../featurize";
import type { AnomalyExplainer } from "./anomaly-file";
import { formatNumber, formatPercent } from "./explain-format";
import type { ColumnContribution } from "./explain-prediction";
import { valueText } from "./explain-text";
import { typicalRange } from "./feature-stats";
import type { InputColumn } from "./input-columns";

/** A category under this share of the training rows is called out as rare. */
const RARE_SHARE = 0.1;

export interface AnomalyTextInput {
  ex: AnomalyExplainer;
  featurizer: FeaturizerSpec;
  columns: InputColumn[];
  columnOf: Int32Array;
  /** The row's featurized values. */
  x: Float32Array;
  contributions: ColumnContribution[];
  score: number;
  flagged: boolean;
  base: number;
  /** "with amount of 310", or "" without a flip. */
  flipPhrase: string;
}

export function anomalyTexts(t: AnomalyTextInput): { explanation_text: string; explanation_label: string; explanation_gloss: string } {
  const total = t.contributions.reduce((s, c) => s + Math.abs(c.contribution), 0);
  const eps = 1e-9 * (1 + total);
  const raising = t.contributions.filter((c) => c.contribution > eps).slice(0, 2);
  const drivers = raising.map((c) => driverText(t, c)).join(" and ");
  const score = formatNumber(t.score, 3);
  const threshold = formatNumber(t.ex.threshold, 3);
  let text: string;
  if (t.flagged) {
    text = `This row is unusual (anomaly score ${score}, above the threshold ${threshold})`;
    text += drivers ? ` mainly because ${drivers}` : " through the combination of its values rather than any one of them";
    if (t.flipPhrase) text += `; ${t.flipPhrase} it would not be flagged`;
    text += ".";
  } else {
    text = `This row is not flagged as unusual (anomaly score ${score}; rows above ${threshold} are flagged).`;
    text += drivers ? ` What stands out most: ${drivers}.` : " None of its values makes it stand out.";
  }
  const main = raising[0];
  const column = main && t.columns.find((c) => c.name === main.column);
  const label = main && column ? `${main.column}=${valueText(column, main.value, false)}` : "typical row";
  return { explanation_text: text, explanation_label: label, explanation_gloss: gloss(t) };
}

/** "amount is 9,400 (typical: 20–300)". */
function driverText(t: AnomalyTextInput, c: ColumnContribution): string {
  const j = t.columns.findIndex((col) => col.name === c.column);
  const column = t.columns[j];
  let text = `${c.column} is ${valueText(column, c.value)}`;
  if (c.value === null) return text;
  const features: number[] = [];
  t.columnOf.forEach((col, f) => col === j && features.push(f));
  if (features.length !== 1) return text;
  const f = features[0];
  const def = t.featurizer.features[f];
  const stats = t.ex.stats[f];
  if (def.transform === "numeric") {
    const range = typicalRange(stats);
    if (range)
      text += range[0] === range[1] ? ` (typically ${formatNumber(range[0])})` : ` (typical: ${formatNumber(range[0])}–${formatNumber(range[1])})`;
  } else if (def.transform === "category" && stats.kind === "category") {
    const x = t.x[f];
    if (Number.isNaN(x)) text += " (a value not among those seen in training)";
    else if (stats.shares[x] < RARE_SHARE) text += ` (${formatPercent(stats.shares[x])} of training rows)`;
  }
  return text;
}

function gloss(t: AnomalyTextInput): string {
  const b = formatNumber(t.base);
  const s = formatNumber(t.score);
  const flagged = `Rows scoring above ${formatNumber(t.ex.threshold)} are flagged as anomalies.`;
  if (t.ex.method === "blended") {
    return (
      "Contributions are in anomaly-score units (0 to 1, higher = more unusual). They combine, as the model blends them, each column's part in the isolation forest's score " +
      "(exact TreeSHAP over the trees' path lengths) and in the encoder's reconstruction error (the column's error above its share of a typical row's); " +
      `they add to the base value ${b} (the score of a row with the training rows' average isolation depth and median reconstruction error) to give this row's score ${s}. ${flagged}`
    );
  }
  return (
    "Contributions are in anomaly-score units (0 to 1, higher = more unusual): exact TreeSHAP over the isolation trees' path lengths, carried onto the score; " +
    `positive ones make the row easier to isolate. They add to the base value ${b} (the score of a row isolated at the training rows' average depth) to give this row's score ${s}. ${flagged}`
  );
}
