/**
 * A Parquet data page's values into a column's typed arrays (./parquet-column): the page layout,
 * the loops over its rows, and a value's kind and text.
 */

export type Mode = "empty" | "number" | "boolean" | "datetime" | "string";

/**
 * How a Parquet data page lays out its values: `rows` rows; with `defs` (definition levels of a
 * flat column), row i is missing when defs[i] is 0 and `values` hold the present rows only; with
 * `dictionary`, values are indices into it (the page is dictionary-encoded).
 */
export interface PageLayout {
  rows: number;
  defs?: ArrayLike<number>;
  dictionary?: ArrayLike<unknown>;
  /** The dictionary's entries are pairwise different strings (a ByteStrings'). */
  distinct?: boolean;
}

/**
 * Signed 64-bit integers (a PLAIN INT64 page) into `out` as numbers, the present rows scattered
 * by `defs`, without a BigInt per value (reading a BigInt64Array's element allocates one): each
 * value from its two 32-bit halves (little-endian, as hyparquet reads INT64). False, with rows
 * partly written, when a value is not a safe integer: the caller then goes value by value.
 */
export function writeSafeInt64(out: Float64Array, rowStart: number, values: BigInt64Array, { rows, defs }: PageLayout): boolean {
  const words = new Int32Array(values.buffer, values.byteOffset, 2 * values.length);
  for (let i = 0, j = 0; i < rows; i++) {
    if (defs && !defs[i]) {
      out[rowStart + i] = Number.NaN;
      continue;
    }
    const low = words[2 * j] >>> 0;
    const high = words[2 * j + 1];
    j++;
    // safe integers are -(2^53 - 1)...2^53 - 1: high word in -2^21...2^21 - 1, not -2^53 itself
    if (high < -0x200000 || high > 0x1fffff || (high === -0x200000 && low === 0)) return false;
    out[rowStart + i] = high * 4294967296 + low;
  }
  return true;
}

// The loops below are functions of their own, with nothing after the loop: see row-dictionary.ts
// (V8 compiles a long loop while it runs; code after it that has not run yet is thrown away).

/** Whether every index is below `size` (an index past the dictionary: the page goes cell by cell). */
export function allBelow(indices: ArrayLike<number>, size: number): boolean {
  for (let j = 0; j < indices.length; j++) if (!(indices[j] < size)) return false;
  return true;
}

/** Whether an index points at a marked entry. */
export function anyMarked(indices: ArrayLike<number>, marked: Uint8Array): boolean {
  for (let j = 0; j < indices.length; j++) if (marked[indices[j]]) return true;
  return false;
}

/** out[rowStart + i] = numbers[indices[i]], a row per index. */
export function scatter(out: Float64Array, rowStart: number, indices: ArrayLike<number>, numbers: Float64Array): void {
  for (let i = 0; i < indices.length; i++) out[rowStart + i] = numbers[indices[i]];
}

/** As scatter, the j-th present row (defs[i] 1) from the j-th index, missing rows NaN. */
export function scatterWithDefs(
  out: Float64Array,
  rowStart: number,
  rows: number,
  defs: ArrayLike<number>,
  indices: ArrayLike<number>,
  numbers: Float64Array,
): void {
  for (let i = 0, j = 0; i < rows; i++) out[rowStart + i] = defs[i] ? numbers[indices[j++]] : Number.NaN;
}

/** The j-th present row (defs[i] 1) from values[j], missing rows NaN. */
export function spreadWithDefs(out: Float64Array, rowStart: number, rows: number, defs: ArrayLike<number>, values: ArrayLike<number>): void {
  for (let i = 0, j = 0; i < rows; i++) out[rowStart + i] = defs[i] ? values[j++] : Number.NaN;
}

/** `to` with the first `size` entries of `from`. */
export function grown<T extends Int32Array | Float64Array | Uint8Array>(from: T, to: T, size: number): T {
  to.set(from.subarray(0, size));
  return to;
}

/** A page's values one per row (null = missing), as writeCells takes them. */
export function cellsOf(values: ArrayLike<unknown>, { rows, defs, dictionary }: PageLayout): unknown[] {
  const out = new Array<unknown>(rows);
  for (let i = 0, j = 0; i < rows; i++) {
    if (defs && !defs[i]) out[i] = null;
    else out[i] = dictionary ? dictionary[values[j++] as number] : values[j++];
  }
  return out;
}

export function firstMode(data: ArrayLike<unknown>): Mode {
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (v !== null && v !== undefined) return modeOf(v);
  }
  return "empty";
}

/** firstMode(cellsOf(values, layout)) without a value per row: pages hold up to a whole row
 * group (DuckDB writes one page per chunk), so that was a JS array of 120 k cells per column. */
export function pageMode(values: ArrayLike<unknown>, { rows, defs, dictionary }: PageLayout): Mode {
  for (let i = 0, j = 0; i < rows; i++) {
    if (defs && !defs[i]) continue;
    const v = dictionary ? dictionary[values[j++] as number] : values[j++];
    if (v !== null && v !== undefined) return modeOf(v);
  }
  return "empty";
}

function modeOf(v: unknown): Mode {
  if (typeof v === "number" || typeof v === "bigint") return "number";
  if (typeof v === "boolean") return "boolean";
  if (v instanceof Date) return "datetime";
  return "string";
}

export function toText(v: unknown): string {
  if (typeof v === "string") return v;
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return Array.from(v, (b) => b.toString(16).padStart(2, "0")).join("");
  if (typeof v === "object") return JSON.stringify(v, (_, x) => (typeof x === "bigint" ? x.toString() : x));
  return String(v);
}
