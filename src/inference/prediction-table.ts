/** A prediction model's answer: its ONNX outputs as the interface's columns. */
import type { PredictionArtifact } from "./artifact";
import type { Cell, ParquetColumnType, ResultTable } from "./output";
import type { GbdtOnnxResult } from "./run-onnx";

export function predictionTable(a: PredictionArtifact, out: GbdtOnnxResult, ids: Cell[]): ResultTable {
  const n = ids.length;
  const table: ResultTable = { id: ids };
  if (a.task === "regression" || !out.probabilities || !out.labelIndex) {
    table.prediction = Array.from(out.prediction ?? [], (x) => x);
    // Regression has no class probability; the column is there (null) so every prediction
    // model answers the same columns.
    table.prediction_prob = new Array<Cell>(n).fill(null);
    return table;
  }
  const classes = a.classes ?? [];
  const C = classes.length;
  const probs = out.probabilities;
  table.prediction = Array.from(out.labelIndex, (k) => classes[k] ?? String(k));
  table.prediction_prob = Array.from(out.labelIndex, (k, i) => round7(probs[i * C + k]));
  classes.forEach((cls, k) => {
    table[`prob_${cls}`] = Array.from({ length: n }, (_, i) => round7(probs[i * C + k]));
  });
  return table;
}

/** Parquet types of the prediction columns, known even when there are no rows to infer them from. */
export function predictionColumnTypes(a: PredictionArtifact, table: ResultTable): Record<string, ParquetColumnType> {
  const types: Record<string, ParquetColumnType> = {};
  for (const name of Object.keys(table)) if (name !== "id") types[name] = "double";
  if (a.task === "classification") types.prediction = "string";
  return types;
}

/** float32 values to the precision they carry (7 digits), without float noise in JSON. */
export const round7 = (x: number) => Number(x.toPrecision(7));
