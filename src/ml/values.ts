/**
 * Cell-level rules shared by the CSV and Parquet readers: which strings mean "missing", and how a
 * string reads as a number, a boolean or a date. Applied to DISTINCT values only, so they may be
 * strict and readable rather than tuned for speed.
 */

/** Missing markers: the common subset of pandas' read_csv defaults. Matched after trimming,
 * case-sensitively (so "Na" the chemical symbol stays a value, "NA" does not). */
const MISSING_MARKERS: ReadonlySet<string> = new Set(["", "NA", "N/A", "n/a", "#N/A", "NULL", "null", "NaN", "nan", "-NaN", "None", "<NA>"]);

/** Trims surrounding whitespace cheaply (most cells have none) and maps missing markers to null. */
export function normalizeCell(raw: string): string | null {
  const n = raw.length;
  if (n === 0) return null;
  const s = raw.charCodeAt(0) <= 32 || raw.charCodeAt(n - 1) <= 32 ? raw.trim() : raw;
  if (s.length <= 5 && MISSING_MARKERS.has(s)) return null;
  return s;
}

/** Decimal numbers with optional exponent. No hex, no thousands separators, no "inf": such
 * columns stay categorical rather than being guessed at. */
const NUMBER_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
/** A leading zero before another digit ("007", "02134") marks a code, not a quantity: reading it
 * as a number would silently lose the zeros of zip codes and product codes. */
const LEADING_ZERO_RE = /^[+-]?0\d/;

/** The finite number a string denotes, or undefined. */
export function parseNumber(s: string): number | undefined {
  if (!NUMBER_RE.test(s) || LEADING_ZERO_RE.test(s)) return undefined;
  const v = Number(s);
  return Number.isFinite(v) ? v : undefined;
}

/** Accepted boolean spellings, as [true, false] pairs compared lower-case. A column is boolean
 * only if all its values come from ONE pair. "1"/"0" are deliberately absent: such a column stays
 * numeric, keeping the values the user wrote (and agreeing with a Parquet integer column). */
const BOOLEAN_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ["true", "false"],
  ["yes", "no"],
  ["t", "f"],
  ["y", "n"],
];

/** Maps each distinct value to 1/0 if all belong to one boolean pair, else undefined. */
export function booleanValues(distinct: readonly string[]): Float64Array | undefined {
  if (distinct.length === 0 || distinct.length > 4) return undefined;
  const lower = distinct.map((s) => s.toLowerCase());
  for (const [t, f] of BOOLEAN_PAIRS) {
    if (lower.every((s) => s === t || s === f)) return Float64Array.from(lower, (s) => (s === t ? 1 : 0));
  }
  return undefined;
}

/** ISO-8601 date, or date and time with optional seconds, fraction and zone. */
const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** Epoch milliseconds (UTC) of an ISO-8601 string, or undefined. A time without a zone is read as
 * UTC, never as the local zone of whichever machine ingests the file. */
export function parseDatetime(s: string): number | undefined {
  const m = ISO_RE.exec(s);
  if (!m) return undefined;
  const [, y, mo, d, h = "0", mi = "0", sec = "0", frac = "", zone = "Z"] = m;
  // Date.UTC maps years 0-99 to 1900-1999; such years are not plausible data anyway.
  if (+y < 100) return undefined;
  const month = +mo,
    day = +d,
    hour = +h,
    minute = +mi,
    second = +sec;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return undefined;
  let t = Date.UTC(+y, month - 1, day, hour, minute, second, frac ? Math.floor(+`0.${frac}` * 1000) : 0);
  // Date.UTC rolls 31 February over into March; a real date maps back to the same day.
  if (new Date(t).getUTCDate() !== day) return undefined;
  if (zone !== "Z") {
    const sign = zone[0] === "-" ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    t -= sign * (+digits.slice(0, 2) * 60 + (+digits.slice(2) || 0)) * 60_000;
  }
  return t;
}

/** Column names that announce an identifier: id, ID, user_id, customerId, uuid, row_key... */
export function looksLikeIdName(name: string): boolean {
  return /(?:^|[_\-\s.])(?:id|uuid|guid|key)$/i.test(name) || /[a-z](?:Id|ID|Uuid|Key)$/.test(name) || /^(?:id|uuid|guid)$/i.test(name);
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Codes like "CUST-000123", "a3f9c2e1", "TX_2024_0001": one token, 6+ chars, with a digit. */
const CODE_RE = /^(?=[^\s]*\d)[A-Za-z0-9][A-Za-z0-9_\-:./#]{5,}$/;

export const isUuid = (s: string): boolean => UUID_RE.test(s);

/** True for a single-token code with a digit, rather than a word or a sentence. */
export const looksLikeCode = (s: string): boolean => CODE_RE.test(s);
