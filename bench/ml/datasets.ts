/** The benchmark datasets and where their files are (loading: test/ml/helpers/bench-data.ts). */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Column, Frame } from "../../src/ml/frame";

export type Task = "regression" | "binary" | "multiclass";
export interface BenchSpec {
  name: string;
  target: string;
  task: Task;
}

export const DATASETS: BenchSpec[] = [
  { name: "diamonds", target: "price", task: "regression" },
  { name: "cps1988", target: "wage", task: "regression" },
  { name: "fertility", target: "morekids", task: "binary" },
  { name: "shuttle", target: "Class", task: "multiclass" },
  { name: "lending_club", target: "Class", task: "binary" },
  { name: "synth_500k", target: "y", task: "regression" },
];

export const SHARED_DIR = "/work/shared/bench-data";
export const LOCAL_DIR = "bench/data"; // gitignored; holds the generated synth_500k.csv

/** Paths of the data and folds files; generates synth_500k.csv on first use. */
export function datasetFiles(name: string): { csv: string; folds: string } {
  const folds = join(SHARED_DIR, `${name}.folds.csv`);
  if (existsSync(join(SHARED_DIR, `${name}.csv`))) return { csv: join(SHARED_DIR, `${name}.csv`), folds };
  const csv = join(LOCAL_DIR, `${name}.csv`);
  if (!existsSync(csv)) {
    if (name !== "synth_500k") throw new Error(`missing ${csv}`);
    mkdirSync(LOCAL_DIR, { recursive: true });
    console.log(`generating ${csv} with make_synth.py ...`);
    execFileSync("/usr/bin/python3", [join(SHARED_DIR, "make_synth.py"), LOCAL_DIR], { stdio: "inherit" });
  }
  return { csv, folds };
}

/** The rows `idx` of a frame, as a new frame (dictionaries shared). */
export function takeRows(frame: Frame, idx: ArrayLike<number>): Frame {
  const columns = frame.columns.map(
    (c): Column =>
      c.storage === "numeric"
        ? { ...c, values: Float64Array.from(idx, (i) => c.values[i]) }
        : { ...c, codes: Int32Array.from(idx, (i) => c.codes[i]) },
  );
  return { rowCount: idx.length, columns };
}
