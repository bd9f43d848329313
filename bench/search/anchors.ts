/**
 * Runs anchors.py for one table, or reads its result from cache/NAME.json: the anchors take
 * minutes (Optuna's 40 trials), our side is what changes between runs.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type SearchTable, tableFiles } from "./tables";

/** The venv of README.md's install commands (Debian's Python with its packages, plus LightGBM and Optuna). */
const PY = "bench/search/.venv/bin/python";
const CACHE_DIR = "bench/search/cache";

export const ANCHORS = ["xgb_es", "hgb", "lgb", "lgb_optuna"] as const;
export type Anchor = (typeof ANCHORS)[number];

export interface AnchorResult {
  fit_s: number;
  fit_cpu_s: number;
  rounds: number;
  r2?: number;
  accuracy?: number;
  auc?: number;
  logloss?: number;
  best_params?: Record<string, number>;
  tune_rows?: number;
}
export interface AnchorsOutput {
  versions: Record<string, string>;
  rows: { train: number; val: number; test: number };
  results: Record<Anchor, AnchorResult>;
}

export function anchors(t: SearchTable, refresh: boolean): AnchorsOutput {
  const cached = join(CACHE_DIR, `${t.name}.json`);
  if (!refresh && existsSync(cached)) return JSON.parse(readFileSync(cached, "utf8"));
  if (spawnSync(PY, ["-c", "import lightgbm, optuna, xgboost, sklearn, pandas"], { stdio: "ignore" }).status !== 0)
    throw new Error(`${PY} lacks its packages: see bench/search/README.md (Install)`);
  const { csv, folds } = tableFiles(t);
  console.log(`  running anchors.py (minutes: Optuna's trials) ...`);
  const out = execFileSync(
    PY,
    ["bench/search/anchors.py", "--csv", csv, "--folds", folds, "--target", t.target, "--task", t.task, "--tune-rows", String(t.tuneRows ?? 0)],
    { env: { ...process.env, OMP_NUM_THREADS: "1" }, stdio: ["ignore", "pipe", "inherit"], maxBuffer: 1 << 24 },
  ).toString();
  mkdirSync(CACHE_DIR, { recursive: true });
  writeFileSync(cached, out);
  return JSON.parse(out);
}
