import { type Column, cellValue, type Frame, findColumn } from "../ml/frame";
import { ID_COLUMN } from "./ids";

export type CellValue = string | number | boolean | null;

/**
 * Rows as plain objects, column order preserved, for preview and look-up responses. A boolean
 * column read from text comes back as the file spelled it ("no", not false), a column of plain
 * dates as dates ("2024-01-02", not a timestamp at midnight): its type is what training uses,
 * the spelling is the user's data.
 */
export function sliceRows(frame: Frame, rowIndexes: ArrayLike<number>): Array<Record<string, CellValue>> {
  const out: Array<Record<string, CellValue>> = [];
  for (let k = 0; k < rowIndexes.length; k++) {
    const row = rowIndexes[k];
    if (!Number.isInteger(row) || row < 0 || row >= frame.rowCount) throw new RangeError(`row index ${row} is outside 0..${frame.rowCount - 1}`);
    const record: Record<string, CellValue> = {};
    for (const column of frame.columns) record[column.name] = storedValue(column, row);
    out.push(record);
  }
  return out;
}

function storedValue(column: Column, row: number): CellValue {
  const value = cellValue(column, row);
  if (column.storage !== "numeric") return value;
  if (typeof value === "boolean" && column.spellings) {
    const code = column.spellings.codes[row];
    return code < 0 ? null : column.spellings.dictionary[code];
  }
  if (typeof value === "boolean" && column.booleanLabels) return column.booleanLabels[value ? 1 : 0];
  if (typeof value === "string" && column.dateOnly) return value.slice(0, 10);
  return value;
}

export type RowId = string | number;

/**
 * The row indexes of the given ids, in the order asked, and the ids not in the frame (as given).
 * Numeric id columns match numbers and decimal strings alike (7 and "7"), as ids arrive from JSON
 * either way. Only the asked ids are held; one pass over the id column, stopping once all are
 * found, so it suits a few hundred ids per request.
 */
export function rowIndexesForIds(frame: Frame, ids: ReadonlyArray<RowId>): { rows: number[]; missing: RowId[] } {
  const column = findColumn(frame, ID_COLUMN);
  const keyOf = column?.storage === "numeric" ? numericKey : (v: RowId) => String(v);
  const found = new Map<RowId, number>(); // key -> row, -1 until found
  for (const v of ids) {
    const key = keyOf(v);
    if (key !== undefined) found.set(key, -1);
  }
  let left = found.size;
  const see = (key: RowId | undefined, row: number) => {
    if (key !== undefined && found.get(key) === -1) {
      found.set(key, row);
      left--;
    }
  };
  if (column?.storage === "numeric") {
    for (let i = 0; i < column.values.length && left > 0; i++) see(column.values[i], i);
  } else if (column) {
    const keyOfCode = new Map<number, string>(); // only the asked ids' codes
    column.dictionary.forEach((s, code) => found.has(s) && keyOfCode.set(code, s));
    for (let i = 0; i < column.codes.length && left > 0; i++) see(keyOfCode.get(column.codes[i]), i);
  }
  const rows: number[] = [];
  const missing: RowId[] = [];
  for (const v of ids) {
    const key = keyOf(v);
    const row = key === undefined ? -1 : (found.get(key) ?? -1);
    if (row >= 0) rows.push(row);
    else missing.push(v);
  }
  return { rows, missing };
}

/** The number an id denotes for a numeric id column: a number, or a decimal string (no "", hex
 * or "Infinity", which Number() would also accept). */
function numericKey(v: RowId): number | undefined {
  const n = typeof v === "number" ? v : /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/.test(v) ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}
