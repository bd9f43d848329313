import { normalizeCell, parseNumber } from "../ml/values";
import { asciiString } from "./ascii";
import { DictionaryBuilder } from "./dictionary-builder";

/** Exact powers of ten: every 10^k with k ≤ 22 is a double without rounding (5^22 < 2^53).
 * Literals, not 10 ** k, which is not guaranteed to be correctly rounded. */
const POW10 = new Float64Array([
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]);
const MAX_EXACT_MANTISSA = 2 ** 53 - 1;

/**
 * The number a plain decimal cell text[start, end) denotes, when it can be computed here with
 * certainty; NaN otherwise (then the caller asks normalizeCell and parseNumber, the definition).
 *
 * Handles: an optional sign, digits with at most one dot (at least one digit), an optional
 * exponent (e or E, optional sign, digits), nothing else (no whitespace, no missing marker), and
 * no leading zero before another digit (parseNumber refuses "007"; that goes the slow way too).
 * Exact by construction, Clinger's fast path: the digits without the dot make an integer
 * mantissa m, exact while m < 2^53 (checked at the end: the partial values only grow, so a
 * value that became inexact on the way ends ≥ 2^53), and the value is m × 10^e or m / 10^-e with
 * |e| ≤ 22, where 10^|e| is exact too; one IEEE multiply or divide of two exact doubles is
 * correctly rounded, and so is Number() of the same text (what parseNumber returns), so both
 * give the same double, -0 included. Anything else (more digits, larger exponents) is NaN.
 * @internal exported for its unit tests (test/ingest/typed-numbers.test.ts, ascii-bytes.test.ts)
 */
export function parsePlainDecimal(text: string, start: number, end: number): number {
  let i = start;
  if (i >= end) return NaN;
  let c = text.charCodeAt(i);
  let neg = false;
  if (c === 0x2d || c === 0x2b) {
    neg = c === 0x2d;
    if (++i >= end) return NaN;
    c = text.charCodeAt(i);
  }
  // A leading zero followed by a digit is a code ("007"), not a number.
  if (c === 0x30 && i + 1 < end) {
    const next = text.charCodeAt(i + 1);
    if (next >= 0x30 && next <= 0x39) return NaN;
  }
  let m = 0;
  let digits = 0;
  let scale = 0; // digits after the dot
  let dot = false;
  for (; i < end; i++) {
    c = text.charCodeAt(i);
    const d = c - 0x30;
    if (d >= 0 && d <= 9) {
      m = m * 10 + d;
      digits++;
      if (dot) scale++;
    } else if (c === 0x2e && !dot) dot = true;
    else break;
  }
  if (digits === 0) return NaN;
  let exp = 0;
  if (i < end) {
    if (c !== 0x65 && c !== 0x45) return NaN; // e, E
    if (++i >= end) return NaN;
    c = text.charCodeAt(i);
    let expNeg = false;
    if (c === 0x2d || c === 0x2b) {
      expNeg = c === 0x2d;
      if (++i >= end) return NaN;
    }
    const from = i;
    for (; i < end; i++) {
      const d = text.charCodeAt(i) - 0x30;
      if (d < 0 || d > 9) return NaN;
      if (exp < 10000) exp = exp * 10 + d;
    }
    if (i === from) return NaN;
    if (expNeg) exp = -exp;
  }
  if (m > MAX_EXACT_MANTISSA) return NaN;
  const e = exp - scale;
  let v: number;
  if (e === 0) v = m;
  else if (e > 0 && e <= 22) v = m * POW10[e];
  else if (e < 0 && e >= -22) v = m / POW10[-e];
  else return NaN;
  return neg ? -v : v;
}

/** parsePlainDecimal of the ASCII bytes[start, end) (the same characters): the same reading,
 * from a typed array instead of charCodeAt and with the integer and fraction digits in loops of
 * their own (tested to agree with parsePlainDecimal bit for bit on random texts).
 * @internal exported for its unit test (test/ingest/ascii-bytes.test.ts)
 */
export function parsePlainDecimalBytes(bytes: Uint8Array, start: number, end: number): number {
  let i = start;
  if (i >= end) return NaN;
  let c = bytes[i];
  let neg = false;
  if (c === 0x2d || c === 0x2b) {
    neg = c === 0x2d;
    if (++i >= end) return NaN;
    c = bytes[i];
  }
  // A leading zero followed by a digit is a code ("007"), not a number.
  if (c === 0x30 && i + 1 < end) {
    const next = bytes[i + 1];
    if (next >= 0x30 && next <= 0x39) return NaN;
  }
  // The integer digits, then the fraction's (two loops: no per-digit test of a dot seen).
  let m = 0;
  const intFrom = i;
  for (; i < end; i++) {
    const d = bytes[i] - 0x30;
    if (d >>> 0 > 9) break;
    m = m * 10 + d;
  }
  let digits = i - intFrom;
  let scale = 0; // digits after the dot
  if (i < end && bytes[i] === 0x2e) {
    const fracFrom = ++i;
    for (; i < end; i++) {
      const d = bytes[i] - 0x30;
      if (d >>> 0 > 9) break;
      m = m * 10 + d;
    }
    scale = i - fracFrom;
    digits += scale;
  }
  if (digits === 0) return NaN;
  let exp = 0;
  if (i < end) {
    c = bytes[i];
    if (c !== 0x65 && c !== 0x45) return NaN; // e, E
    if (++i >= end) return NaN;
    c = bytes[i];
    let expNeg = false;
    if (c === 0x2d || c === 0x2b) {
      expNeg = c === 0x2d;
      if (++i >= end) return NaN;
    }
    const from = i;
    for (; i < end; i++) {
      const d = bytes[i] - 0x30;
      if (d < 0 || d > 9) return NaN;
      if (exp < 10000) exp = exp * 10 + d;
    }
    if (i === from) return NaN;
    if (expNeg) exp = -exp;
  }
  if (m > MAX_EXACT_MANTISSA) return NaN;
  const e = exp - scale;
  let v: number;
  if (e === 0) v = m;
  else if (e > 0 && e <= 22) v = m * POW10[e];
  else if (e < 0 && e >= -22) v = m / POW10[-e];
  else return NaN;
  return neg ? -v : v;
}

/**
 * A column read straight into numbers (Float64Array growing by doubling, NaN = missing): what a
 * column whose sampled values were all numbers becomes (see CsvTable), so that its cells are
 * never strings nor Map keys. Missing cells follow normalizeCell and numbers parseNumber, exactly
 * as dictionary encoding followed by inferColumn reads them. push and pushSpan return false,
 * appending nothing, for a cell that is neither missing nor a number: the caller then turns the
 * column into a DictionaryBuilder (toDictionary) and pushes the cell there.
 */
export class NumericBuilder {
  private values: Float64Array;
  length = 0;
  missingCount = 0;

  constructor(initialCapacity = 1024) {
    this.values = new Float64Array(Math.max(16, initialCapacity));
  }

  /** The builder continuing a dictionary-encoded column whose distinct values `numbers` are,
   * room for `capacity` values (at least the codes') before it grows. */
  static fromCodes(codes: Int32Array, numbers: Float64Array, missingCount: number, capacity = codes.length * 2): NumericBuilder {
    const b = new NumericBuilder(Math.max(capacity, codes.length));
    const values = b.values;
    for (let i = 0; i < codes.length; i++) {
      const c = codes[i];
      values[i] = c < 0 ? NaN : numbers[c];
    }
    b.length = codes.length;
    b.missingCount = missingCount;
    return b;
  }

  /** Appends the raw cell text[start, end); false if it is not a number (nothing appended). */
  pushSpan(text: string, start: number, end: number): boolean {
    const v = parsePlainDecimal(text, start, end);
    if (v !== v) return this.push(text.slice(start, end));
    if (this.length === this.values.length) this.grow();
    this.values[this.length++] = v;
    return true;
  }

  /** pushSpan of the ASCII bytes[start, end). */
  pushBytes(bytes: Uint8Array, start: number, end: number): boolean {
    const v = parsePlainDecimalBytes(bytes, start, end);
    if (v !== v) return this.push(asciiString(bytes, start, end));
    if (this.length === this.values.length) this.grow();
    this.values[this.length++] = v;
    return true;
  }

  /** Appends a raw cell (trimmed; missing markers are NaN); false if it is not a number. */
  push(raw: string): boolean {
    const s = normalizeCell(raw);
    let v = NaN;
    if (s !== null) {
      const parsed = parseNumber(s);
      if (parsed === undefined) return false;
      v = parsed;
    } else this.missingCount++;
    if (this.length === this.values.length) this.grow();
    this.values[this.length++] = v;
    return true;
  }

  /** The values so far, as a view (for a frame stored while the file is read: ./streamed-frame). */
  valuesSoFar(): Float64Array {
    return this.values.subarray(0, this.length);
  }

  /** The values, trimmed to the row count: a view when at most 1/16 of the room is unused (the
   * room reserved for a file's expected rows: a copy would cost a pass over the column and, for a
   * moment, twice its memory), else a copy (after doublings, up to half would be unused). */
  finish(): Float64Array {
    const room = this.values.length;
    return this.length >= room - (room >>> 4) ? this.values.subarray(0, this.length) : this.values.slice(0, this.length);
  }

  /**
   * The same cells as a DictionaryBuilder, for a column that turned out not to be numeric. The
   * cells read so far are spelled as JavaScript prints their numbers ("1.50" and "1.5" both
   * become "1.5", "1e3" becomes "1000", "-0" stays "-0"): the original spelling is not kept, only
   * a spelling that parseNumber reads back as the same number.
   */
  toDictionary(): DictionaryBuilder {
    const b = new DictionaryBuilder(this.values.length);
    const values = this.values;
    for (let i = 0; i < this.length; i++) {
      const v = values[i];
      b.pushValue(v !== v ? null : Object.is(v, -0) ? "-0" : String(v));
    }
    return b;
  }

  private grow(): void {
    const next = new Float64Array(this.values.length * 2);
    next.set(this.values);
    this.values = next;
  }
}
