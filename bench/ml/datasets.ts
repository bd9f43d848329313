/** The benchmark datasets, where their files are, and a fallback CSV → Frame loader. */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Column, Frame } from "../../src/ml/frame";

export type Task = "regression" | "binary" | "multiclass";
export interface BenchSpec { name: string; target: string; task: Task }

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
export function datasetFiles(name: string): { csv: string; folds: string; dir: string } {
  const folds = join(SHARED_DIR, `${name}.folds.csv`);
  if (existsSync(join(SHARED_DIR, `${name}.csv`))) return { csv: join(SHARED_DIR, `${name}.csv`), folds, dir: SHARED_DIR };
  const csv = join(LOCAL_DIR, `${name}.csv`);
  if (!existsSync(csv)) {
    if (name !== "synth_500k") throw new Error(`missing ${csv}`);
    mkdirSync(LOCAL_DIR, { recursive: true });
    console.log(`generating ${csv} with make_synth.py ...`);
    execFileSync("/usr/bin/python3", [join(SHARED_DIR, "make_synth.py"), LOCAL_DIR], { stdio: "inherit" });
  }
  return { csv, folds, dir: LOCAL_DIR };
}

/** Minimal loader for these unquoted CSVs: numeric columns when every non-empty cell parses. */
export function readCsvFrame(path: string): Frame {
  const lines = readFileSync(path, "utf8").split("\n").filter((l) => l.length > 0);
  const names = lines[0].split(",");
  const cells = names.map(() => new Array<string>(lines.length - 1));
  for (let r = 1; r < lines.length; r++) {
    const parts = lines[r].split(",");
    for (let c = 0; c < names.length; c++) cells[c][r - 1] = parts[c] ?? "";
  }
  const columns: Column[] = names.map((name, c) => {
    const raw = cells[c];
    const nums = Float64Array.from(raw, (s) => (s === "" || s === "NA" ? NaN : Number(s)));
    if (raw.every((s, i) => !Number.isNaN(nums[i]) || s === "" || s === "NA")) {
      return { name, kind: "numeric", storage: "numeric", values: nums };
    }
    const dictionary = [...new Set(raw.filter((s) => s !== "" && s !== "NA"))].sort();
    const index = new Map(dictionary.map((s, i) => [s, i]));
    const codes = Int32Array.from(raw, (s) => index.get(s) ?? -1);
    return { name, kind: "categorical", storage: "dictionary", codes, dictionary };
  });
  return { rowCount: lines.length - 1, columns };
}

export function readFolds(path: string): { train: Int32Array; val: Int32Array; test: Int32Array } {
  const fold = readFileSync(path, "utf8").trim().split("\n").slice(1);
  const pick = (f: string) => Int32Array.from(fold.flatMap((x, i) => (x.trim() === f ? [i] : [])));
  return { train: pick("train"), val: pick("val"), test: pick("test") };
}

/** The rows `idx` of a frame, as a new frame (dictionaries shared). */
export function takeRows(frame: Frame, idx: ArrayLike<number>): Frame {
  const columns = frame.columns.map((c): Column =>
    c.storage === "numeric"
      ? { ...c, values: Float64Array.from(idx, (i) => c.values[i]) }
      : { ...c, codes: Int32Array.from(idx, (i) => c.codes[i]) });
  return { rowCount: idx.length, columns };
}
