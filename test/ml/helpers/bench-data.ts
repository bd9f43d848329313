/**
 * Loads a benchmark dataset (`/work/shared/bench-data/NAME.csv` + `NAME.folds.csv`) into a Frame
 * with fixed train/val/test row indices. Type inference is deliberately simple: a column whose
 * non-empty values all parse as numbers is numeric, anything else is a dictionary-encoded
 * categorical. Used by the engine tests, the benchmark harness and the ONNX tests.
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Papa from "papaparse";
import type { Column, Frame } from "../../../src/ml/frame";

export const BENCH_DATA_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../shared/bench-data");

const BENCH_TARGETS: Record<string, { target: string; task: "classification" | "regression" }> = {
  diamonds: { target: "price", task: "regression" },
  cps1988: { target: "wage", task: "regression" },
  fertility: { target: "morekids", task: "classification" },
  shuttle: { target: "Class", task: "classification" },
  lending_club: { target: "Class", task: "classification" },
  synth_500k: { target: "y", task: "regression" },
};

export interface BenchDataset {
  frame: Frame;
  target: string;
  task: "classification" | "regression";
  folds: { train: Int32Array; val: Int32Array; test: Int32Array };
}

/**
 * @param name dataset name (see BENCH_TARGETS)
 * @param csvPath optional path of the CSV (e.g. /tmp/synth_500k.csv, which is not stored);
 *   the folds always come from the bench-data directory.
 */
export function loadBenchDataset(name: string, csvPath?: string): BenchDataset {
  const meta = BENCH_TARGETS[name];
  if (!meta) throw new Error(`unknown bench dataset ${name}`);
  const { frame, folds } = loadFoldedCsv(csvPath ?? join(BENCH_DATA_DIR, `${name}.csv`), join(BENCH_DATA_DIR, `${name}.folds.csv`));
  return { frame, target: meta.target, task: meta.task, folds };
}

/**
 * Any table in the bench-data layout (a CSV and its folds file, one `fold` line per data row):
 * the shared datasets above, and bench/search's own tables.
 */
export function loadFoldedCsv(csvPath: string, foldsPath: string): Pick<BenchDataset, "frame" | "folds"> {
  const frame = parseCsvFrame(readFileSync(csvPath, "utf8"));
  const foldLines = readFileSync(foldsPath, "utf8")
    .split(/\r?\n/)
    .slice(1)
    .filter((l) => l.length > 0);
  if (foldLines.length !== frame.rowCount) {
    throw new Error(`${foldsPath}: ${foldLines.length} fold lines for ${frame.rowCount} rows`);
  }
  const idx: Record<string, number[]> = { train: [], val: [], test: [] };
  foldLines.forEach((f, i) => idx[f.trim()].push(i));
  return { frame, folds: { train: Int32Array.from(idx.train), val: Int32Array.from(idx.val), test: Int32Array.from(idx.test) } };
}

/** CSV text (header row) to a Frame: numeric when every non-empty value parses, else categorical. */
function parseCsvFrame(text: string): Frame {
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: true });
  const [header, ...rows] = parsed.data;
  const n = rows.length;
  const columns: Column[] = header.map((name, j) => {
    const values = new Float64Array(n);
    let numeric = true;
    for (let i = 0; i < n; i++) {
      const s = rows[i][j];
      if (s === undefined || s === "" || s === "NA") values[i] = NaN;
      else {
        const x = Number(s);
        if (Number.isNaN(x)) {
          numeric = false;
          break;
        }
        values[i] = x;
      }
    }
    if (numeric) return { name, kind: "numeric", storage: "numeric", values };
    const dict = new Map<string, number>();
    const codes = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const s = rows[i][j];
      if (s === undefined || s === "" || s === "NA") codes[i] = -1;
      else {
        let c = dict.get(s);
        if (c === undefined) dict.set(s, (c = dict.size));
        codes[i] = c;
      }
    }
    return { name, kind: "categorical", storage: "dictionary", codes, dictionary: [...dict.keys()] };
  });
  return { rowCount: n, columns };
}
