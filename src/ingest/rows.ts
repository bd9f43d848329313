import { cellValue, findColumn, type Frame } from "../ml/frame";
import { ID_COLUMN } from "./ids";

export type CellValue = string | number | boolean | null;

/** Rows as plain objects, column order preserved, for preview and look-up responses. */
export function sliceRows(frame: Frame, rowIndexes: ArrayLike<number>): Array<Record<string, CellValue>> {
  const out: Array<Record<string, CellValue>> = [];
  for (let k = 0; k < rowIndexes.length; k++) {
    const row = rowIndexes[k];
    if (!Number.isInteger(row) || row < 0 || row >= frame.rowCount) throw new RangeError(`row index ${row} is outside 0..${frame.rowCount - 1}`);
    const record: Record<string, CellValue> = {};
    for (const column of frame.columns) record[column.name] = cellValue(column, row);
    out.push(record);
  }
  return out;
}

/**
 * Row indexes of the given ids, in request order; ids not in the frame are left out. Numeric id
 * columns also match numeric strings ("17"), as ids arrive from JSON either way. One pass over
 * the id column, so it suits a few hundred ids per request.
 */
export function rowIndexesForIds(frame: Frame, ids: ReadonlyArray<string | number>): number[] {
  const column = findColumn(frame, ID_COLUMN);
  if (!column) return [];
  const found = new Map<string, number>();
  if (column.storage === "numeric") {
    const wanted = new Set(ids.map((v) => String(Number(v))));
    for (let i = 0; i < column.values.length; i++) {
      const key = String(column.values[i]);
      if (wanted.has(key) && !found.has(key)) found.set(key, i);
    }
    return ids.map((v) => found.get(String(Number(v)))).filter((i): i is number => i !== undefined);
  }
  const wanted = new Set(ids.map(String));
  const codeToKey = new Map<number, string>();
  column.dictionary.forEach((s, code) => wanted.has(s) && codeToKey.set(code, s));
  for (let i = 0; i < column.codes.length; i++) {
    const key = codeToKey.get(column.codes[i]);
    if (key !== undefined && !found.has(key)) found.set(key, i);
  }
  return ids.map((v) => found.get(String(v))).filter((i): i is number => i !== undefined);
}
