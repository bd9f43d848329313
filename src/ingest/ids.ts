import type { Column } from "../ml/frame";
import { IngestError } from "./errors";

/** The name of the row-id column, generated or taken from the file. */
export const ID_COLUMN = "id";

/**
 * Puts the row-id column first. A file column named exactly `id` is kept (moved to the front);
 * otherwise an `id` column 0..n-1 in file order is generated. Either way, ids identify rows in
 * previews, look-ups and inference output.
 */
export function withRowIds(columns: Column[], rowCount: number): { columns: Column[]; idGenerated: boolean } {
  const at = columns.findIndex((c) => c.name === ID_COLUMN);
  if (at >= 0) {
    const rest = columns.filter((_, i) => i !== at);
    return { columns: [columns[at], ...rest], idGenerated: false };
  }
  const values = new Float64Array(rowCount);
  for (let i = 0; i < rowCount; i++) values[i] = i;
  return { columns: [{ name: ID_COLUMN, kind: "id", storage: "numeric", values }, ...columns], idGenerated: true };
}

/** A file's `id` column from its distinct strings: integers keep numeric storage, anything else
 * stays strings. Must be non-missing and unique. */
export function keptIdFromStrings(dictionary: string[], codes: Int32Array, rowCount: number): Column {
  const missingAt = codes.indexOf(-1);
  if (missingAt >= 0)
    throw missingIdError(
      codes.reduce((n, c) => n + (c < 0 ? 1 : 0), 0),
      missingAt,
    );
  if (dictionary.length < rowCount) {
    const row = firstRepeat(codes);
    throw duplicateIdError(row, dictionary[codes[row]]);
  }
  const ints = dictionary.map((s) => (/^[+-]?\d+$/.test(s) ? Number(s) : NaN));
  if (ints.every((v) => Number.isSafeInteger(v)) && new Set(ints).size === ints.length) {
    const values = new Float64Array(rowCount);
    for (let i = 0; i < rowCount; i++) values[i] = ints[codes[i]];
    return { name: ID_COLUMN, kind: "id", storage: "numeric", values };
  }
  return { name: ID_COLUMN, kind: "id", storage: "dictionary", codes, dictionary };
}

/** A file's `id` column that is already numeric (Parquet integers). */
export function keptIdFromNumbers(values: Float64Array): Column {
  let missing = 0;
  let firstMissing = -1;
  for (let i = 0; i < values.length; i++) {
    if (Number.isNaN(values[i])) {
      missing++;
      if (firstMissing < 0) firstMissing = i;
    }
  }
  if (missing > 0) throw missingIdError(missing, firstMissing);
  const seen = new Set<number>();
  for (let i = 0; i < values.length; i++) {
    if (seen.has(values[i])) throw duplicateIdError(i, String(values[i]));
    seen.add(values[i]);
  }
  return { name: ID_COLUMN, kind: "id", storage: "numeric", values };
}

function firstRepeat(codes: Int32Array): number {
  const seen = new Set<number>();
  for (let i = 0; i < codes.length; i++) {
    if (seen.has(codes[i])) return i;
    seen.add(codes[i]);
  }
  return -1;
}

function missingIdError(count: number, firstRow: number): IngestError {
  return new IngestError(
    "bad_id_column",
    `The "id" column has ${count} missing value${count === 1 ? "" : "s"} (first in data row ${firstRow + 1}). An "id" column must give every row a unique value; rename the column to have ids generated instead.`,
  );
}

function duplicateIdError(row: number, value: string): IngestError {
  return new IngestError(
    "bad_id_column",
    `The "id" column is not unique: the value "${value}" repeats in data row ${row + 1}. An "id" column must give every row a unique value; rename the column to have ids generated instead.`,
  );
}
