/** The benchmark tables (../shared/bench-data) and the inference files cut from their test fold. */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const DATA_DIR = "/work/shared/bench-data";

export interface Spec {
  name: string;
  target: string;
  task: "regression" | "binary";
}

export const FERTILITY: Spec = { name: "fertility", target: "morekids", task: "binary" };
export const DIAMONDS: Spec = { name: "diamonds", target: "price", task: "regression" };

export const csvPath = (s: Spec) => join(DATA_DIR, `${s.name}.csv`);
export const foldsPath = (s: Spec) => join(DATA_DIR, `${s.name}.folds.csv`);

const lines = (text: string) => text.split(/\r?\n/).filter((l) => l.length > 0);

/**
 * A CSV of the first `n` test-fold rows with the label column dropped (the file a client sends
 * for prediction). The bench tables have no quoted fields (checked), so lines split on commas.
 */
export function testRowsCsv(s: Spec, n: number): { csv: string; rows: number; testRows: number } {
  const text = readFileSync(csvPath(s), "utf8");
  if (text.includes('"')) throw new Error(`${s.name}.csv has quoted fields; this cutter splits on commas`);
  const [header, ...data] = lines(text);
  const folds = lines(readFileSync(foldsPath(s), "utf8")).slice(1);
  if (folds.length !== data.length) throw new Error(`${s.name}: ${folds.length} folds for ${data.length} rows`);
  const cols = header.split(",");
  const drop = cols.indexOf(s.target);
  if (drop < 0) throw new Error(`${s.name}: no column ${s.target}`);
  const keep = (line: string) =>
    line
      .split(",")
      .filter((_, i) => i !== drop)
      .join(",");
  const test: string[] = [];
  for (let i = 0; i < data.length; i++) if (folds[i] === "test") test.push(data[i]);
  if (test.length < n) throw new Error(`${s.name}: only ${test.length} test rows, ${n} asked`);
  const out = `${[keep(header), ...test.slice(0, n).map(keep)].join("\n")}\n`;
  return { csv: out, rows: n, testRows: test.length };
}
