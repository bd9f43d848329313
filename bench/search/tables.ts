/**
 * The search benchmark's tables: the shared bench-data (bench/ml/datasets.ts) and this
 * benchmark's own, exported from Debian's R data packages into ./data (README.md says which).
 */
import { join } from "node:path";
import { type BenchSpec, DATASETS, datasetFiles } from "../ml/datasets";

/** The score a table is judged by (higher is better for all three). */
export type Metric = "r2" | "accuracy" | "auc";

export interface SearchTable extends BenchSpec {
  metric: Metric;
  /** Optuna's trials fit on this many training rows at most (the refit uses all): see README.md. */
  tuneRows?: number;
}

const OWN_DIR = "bench/search/data";

// Binary tables by AUC: several are imbalanced (lending_club is ≈ 95% one class), where accuracy
// barely moves off the majority rate; multiclass by accuracy, regression by R².
const metricOf = (s: BenchSpec): Metric => (s.task === "regression" ? "r2" : s.task === "binary" ? "auc" : "accuracy");

// Optuna's 40 trials on all 183k / 360k training rows would run well past the ~15 min one anchor
// run may take on this shared 2-core machine (estimated, README.md): those two tune on 50k rows.
const TUNE_ROWS: Record<string, number> = { fertility: 50_000, synth_500k: 50_000 };

const OWN: BenchSpec[] = [
  { name: "ames", target: "Sale_Price", task: "regression" },
  { name: "nmes1988", target: "visits", task: "regression" },
  { name: "credit_data", target: "Status", task: "binary" },
  { name: "wa_churn", target: "churn", task: "binary" },
  { name: "smokeban", target: "smoker", task: "binary" },
  { name: "satellite", target: "classes", task: "multiclass" },
  { name: "hpc_data", target: "class", task: "multiclass" },
];

export const TABLES: SearchTable[] = [...DATASETS, ...OWN].map((s) => ({ ...s, metric: metricOf(s), tuneRows: TUNE_ROWS[s.name] }));

/** Data and folds files of a table (the shared ones: synth_500k.csv is generated on first use). */
export function tableFiles(t: SearchTable): { csv: string; folds: string } {
  if (DATASETS.some((d) => d.name === t.name)) return datasetFiles(t.name);
  return { csv: join(OWN_DIR, `${t.name}.csv`), folds: join(OWN_DIR, `${t.name}.folds.csv`) };
}
