import type { Column, ColumnKind, NumericColumn } from "../ml/frame";
import { booleanValues, isUuid, looksLikeCode, looksLikeIdName, parseDatetime, parseNumber } from "../ml/values";

/**
 * Type inference for a dictionary-encoded column, looking at its DISTINCT values only, in order:
 * 1. boolean   all values from one pair: true/false, yes/no, t/f, y/n (any case); not 0/1
 * 2. numeric   all values finite decimal numbers (no leading-zero codes, no inf); integers that are
 *              unique per row become `id` when the name says so or they count 0..n-1-like runs
 * 3. datetime  all values ISO-8601 dates or date-times (zone-less read as UTC)
 * 4. id        strings unique per row, no missing, and named like an id, or all UUIDs, or (in
 *              tables of 10+ rows, where uniqueness means something) all single-token codes
 *              with a digit such as "CUST-00123"
 * 5. text      many distinct values (>= 20, and >= half of the non-missing cells) that are mostly
 *              phrases: at least half contain whitespace and the average length is >= 15
 * 6. categorical otherwise.
 * A column with no values at all is numeric (all NaN): it carries nothing either way.
 */
export function inferColumn(name: string, dictionary: string[], codes: Int32Array, missingCount: number, rowCount: number): Column {
  const n = dictionary.length;
  if (n === 0) return { name, kind: "numeric", storage: "numeric", values: new Float64Array(rowCount).fill(NaN) };

  const bools = booleanValues(dictionary);
  if (bools) {
    const col = numericColumn(name, "boolean", codes, bools) as NumericColumn;
    col.booleanLabels = booleanSpelling(dictionary, bools);
    if (n > 2) col.spellings = { codes, dictionary };
    return col;
  }

  const nums = mapAll(dictionary, parseNumber);
  if (nums) {
    const unique = n === rowCount && missingCount === 0;
    const kind = unique && isIntegerIdColumn(name, nums) ? "id" : "numeric";
    return numericColumn(name, kind, codes, nums);
  }

  const times = mapAll(dictionary, parseDatetime);
  if (times) {
    const col = numericColumn(name, "datetime", codes, times) as NumericColumn;
    if (dictionary.every((d) => DATE_ONLY.test(d))) col.dateOnly = true;
    return col;
  }

  return { name, kind: stringKind(name, dictionary, rowCount - missingCount, rowCount), storage: "dictionary", codes, dictionary };
}

/**
 * What inferColumn makes of a column whose every non-missing value is a number (by parseNumber),
 * given as one value per row (NaN = missing), as NumericBuilder reads it: numeric, or id for
 * unique integers as above. The same column inferColumn gives for the same cells: there, `unique`
 * (one distinct string per row, none missing) and then isIntegerIdColumn over the distinct
 * values; here isIntegerIdColumn over the rows, which tests that their numbers are distinct —
 * which they are exactly when their strings are distinct and isIntegerIdColumn holds (equal
 * strings give equal numbers; and the distinct values are the rows' values in another order).
 */
export function inferNumericValues(name: string, values: Float64Array, missingCount: number): NumericColumn {
  const kind = missingCount === 0 && isIntegerIdColumn(name, values) ? "id" : "numeric";
  return { name, kind, storage: "numeric", values };
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** The kind of a column of strings that are not numbers, booleans or dates. */
function stringKind(name: string, dictionary: string[], nonMissing: number, rowCount: number): "id" | "text" | "categorical" {
  const n = dictionary.length;
  if (n === rowCount && nonMissing === rowCount && rowCount >= 2) {
    if (looksLikeIdName(name) || dictionary.every(isUuid) || (rowCount >= 10 && dictionary.every(looksLikeCode))) return "id";
  }
  if (n >= 20 && n >= nonMissing / 2) {
    let spaced = 0;
    let chars = 0;
    for (const s of dictionary) {
      chars += s.length;
      if (/\s/.test(s)) spaced++;
    }
    if (spaced >= n / 2 && chars / n >= 15) return "text";
  }
  return "categorical";
}

/**
 * Integers unique per row that identify rows rather than measure anything: named like an id, or
 * a run of n consecutive integers (a row counter such as pandas' "Unnamed: 0") in a table of at
 * least 100 rows (below that a unique run is as likely a year or a rank). `values` holds one value
 * per row; NaN anywhere disqualifies.
 */
export function isIntegerIdColumn(name: string, values: ArrayLike<number>): boolean {
  const rows = values.length;
  const named = looksLikeIdName(name);
  if (rows < 2 || (!named && rows < 100)) return false;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < rows; i++) {
    const v = values[i];
    if (!Number.isSafeInteger(v)) return false;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (!named && max - min + 1 !== rows) return false;
  return allDistinct(values, min, max);
}

function allDistinct(values: ArrayLike<number>, min: number, max: number): boolean {
  const rows = values.length;
  if (max - min < 4 * rows) {
    // Dense range: a bitmap is cheaper than sorting.
    const seen = new Uint8Array(max - min + 1);
    for (let i = 0; i < rows; i++) {
      const k = values[i] - min;
      if (seen[k]) return false;
      seen[k] = 1;
    }
    return true;
  }
  const sorted = Float64Array.from(values).sort();
  for (let i = 1; i < rows; i++) if (sorted[i] === sorted[i - 1]) return false;
  return true;
}

/** Applies `parse` to every distinct value; undefined as soon as one fails. */
function mapAll(dictionary: string[], parse: (s: string) => number | undefined): Float64Array | undefined {
  const out = new Float64Array(dictionary.length);
  for (let i = 0; i < dictionary.length; i++) {
    const v = parse(dictionary[i]);
    if (v === undefined) return undefined;
    out[i] = v;
  }
  return out;
}

/** The first spelling of false and of true in the file (["no", "yes"], ["F", "T"], …). */
function booleanSpelling(dictionary: string[], bools: Float64Array): [string, string] {
  const f = dictionary.find((_, i) => bools[i] === 0);
  const t = dictionary.find((_, i) => bools[i] === 1);
  return [f ?? "false", t ?? "true"];
}

/** Expands codes through a per-distinct-value table into numeric storage. */
function numericColumn(name: string, kind: ColumnKind & ("numeric" | "boolean" | "datetime" | "id"), codes: Int32Array, table: Float64Array): Column {
  const values = new Float64Array(codes.length);
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i];
    values[i] = c < 0 ? NaN : table[c];
  }
  return { name, kind, storage: "numeric", values };
}
