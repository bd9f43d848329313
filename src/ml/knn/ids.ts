/**
 * The training rows' ids (the frame's `id` column) in the compact form the index file stores:
 * unsigned 32-bit integers when every id is one (generated ids always are), else float64 numbers,
 * else UTF-8 strings (offsets + bytes). Strings are decoded only for the ids a query returns, so a
 * loaded index holds one byte array instead of a million JS strings.
 */
import { type Column, cellValue } from "../frame";

export type SearchId = string | number;

export type IdTable =
  | { kind: "u32"; values: Uint32Array }
  | { kind: "f64"; values: Float64Array }
  | { kind: "utf8"; offsets: Uint32Array; bytes: Uint8Array };

/** The ids of the first `rows` rows of a column: numbers stay numbers, anything else is its text. */
export function idTableFromColumn(col: Column, rows: number): IdTable {
  if (col.storage === "numeric" && (col.kind === "id" || col.kind === "numeric")) {
    const v = col.values.subarray(0, rows);
    if (v.every((x) => Number.isInteger(x) && x >= 0 && x <= 0xffffffff)) return { kind: "u32", values: Uint32Array.from(v) };
    if (v.every((x) => Number.isFinite(x))) return { kind: "f64", values: Float64Array.from(v) };
  }
  return idTableFromValues(Array.from({ length: rows }, (_, i) => cellValue(col, i)));
}

/** Ids from plain values (null: the empty string; booleans: their text). */
export function idTableFromValues(values: (string | number | boolean | null)[]): IdTable {
  if (values.every((x) => typeof x === "number" && Number.isInteger(x) && x >= 0 && x <= 0xffffffff)) {
    return { kind: "u32", values: Uint32Array.from(values as number[]) };
  }
  if (values.every((x) => typeof x === "number" && Number.isFinite(x))) return { kind: "f64", values: Float64Array.from(values as number[]) };
  const enc = new TextEncoder();
  const parts = values.map((x) => enc.encode(x === null ? "" : String(x)));
  const offsets = new Uint32Array(parts.length + 1);
  for (let i = 0; i < parts.length; i++) offsets[i + 1] = offsets[i] + parts[i].length;
  const bytes = new Uint8Array(offsets[parts.length]);
  parts.forEach((p, i) => bytes.set(p, offsets[i]));
  return { kind: "utf8", offsets, bytes };
}

const decoder = new TextDecoder();

/** The id of training row `row`. */
export function idAt(t: IdTable, row: number): SearchId {
  if (t.kind !== "utf8") return t.values[row];
  return decoder.decode(t.bytes.subarray(t.offsets[row], t.offsets[row + 1]));
}
