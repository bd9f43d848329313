/**
 * The input columns behind a featurizer's features, as every explanation reports them: a
 * column's derived features (datetime parts, ...) map to one entry, so contributions are summed
 * back to what the user wrote. Also the row's cell as written and the explained rows' sub-frame.
 */
import type { FeatureDef, FeaturizerSpec } from "../featurize";
import type { Column, Frame } from "../frame";
import { cellValue } from "../frame";

export type CellValue = string | number | boolean | null;

export type ColumnType = "numeric" | "boolean" | "category" | "datetime";

export interface InputColumn {
  name: string;
  /** The frame's column (absent: every value missing). */
  column: Column | undefined;
  type: ColumnType;
}

export interface ColumnMap {
  /** In the order of their first feature. */
  columns: InputColumn[];
  /** Feature index -> index in `columns`. */
  columnOf: Int32Array;
}

export function mapColumns(featurizer: FeaturizerSpec, frame: Frame): ColumnMap {
  const byName = new Map<string, Column>();
  for (const c of frame.columns) if (!byName.has(c.name)) byName.set(c.name, c);
  const columns: InputColumn[] = [];
  const index = new Map<string, number>();
  const columnOf = new Int32Array(featurizer.features.length);
  featurizer.features.forEach((d, f) => {
    let j = index.get(d.source);
    if (j === undefined) {
      j = columns.length;
      index.set(d.source, j);
      columns.push({ name: d.source, column: byName.get(d.source), type: columnType(d) });
    }
    columnOf[f] = j;
  });
  return { columns, columnOf };
}

export function columnType(d: FeatureDef): ColumnType {
  if (d.transform === "category" || d.transform === "numeric" || d.transform === "boolean") return d.transform;
  return "datetime";
}

/** The frame restricted to `rows` and the given input columns (featurized once, in row order). */
export function subFrame(rows: number[], columns: InputColumn[]): Frame {
  const out: Column[] = [];
  for (const { column: c } of columns) {
    if (!c) continue;
    if (c.storage === "dictionary") out.push({ ...c, codes: Int32Array.from(rows, (r) => c.codes[r]) });
    else out.push({ ...c, values: Float64Array.from(rows, (r) => c.values[r]) });
  }
  return { rowCount: rows.length, columns: out };
}

/** The cell as written; non-finite numbers as text (JSON would turn them into null). */
export function cellOf(c: InputColumn, row: number): CellValue {
  if (!c.column) return null;
  const v = cellValue(c.column, row);
  return typeof v === "number" && !Number.isFinite(v) ? String(v) : v;
}
