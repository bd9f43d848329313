/**
 * How a frame stores one column's buffer (codec.ts, version 2): raw, or a narrower form chosen at
 * encode time that widens back to the very same bits.
 *
 * - values (Float64Array, NaN = missing):
 *   - "range": value i is start + i (a generated id 0..n-1): no bytes at all;
 *   - "grid": every present value is k / 10^d or k · step (value-grid.ts) with k in a small range:
 *     k − lo in the narrowest of 1, 2 or 4 bits, u8, u16, 3 bytes or u32, the all-ones code for
 *     NaN. Booleans (0/1) and whole-day datetimes land here. Decoding computes the same division
 *     or product the encoder checked on every value, so the doubles come back bit for bit;
 * - codes (Int32Array, -1 = missing): "shifted": code + 1 in the narrowest of 1, 2 or 4 bits, u8,
 *   u16 or 3 bytes that holds the largest code.
 *
 * `width` is bytes a value; `bits` (1, 2 or 4, with width 1) packs several values a byte
 * (packed-ints.ts). Sub-byte and 3-byte forms are version 3 (needsVersion3): a frame without
 * them is still written as version 2, which deployments from before read.
 *
 * A column with −0, ±Infinity, a NaN other than the canonical one, or a value off every grid stays
 * raw (absent encoding): the encoder only ever chooses a form it has verified on the whole column.
 */
import { type Grid, gridSearch } from "../ml/value-grid";
import { type PackedBits, pack24, packBits, packedLength, unpack24, unpackBits } from "./packed-ints";

type Width = 1 | 2 | 3 | 4;

export type ColumnEncoding =
  | { type: "range"; start: number }
  | { type: "grid"; times: number; step: number; lo: number; width: Width; bits?: PackedBits }
  | { type: "shifted"; width: 1 | 2 | 3; bits?: PackedBits };

/** Bytes a value and bits a value (when under a byte): how a buffer of unsigned codes is laid out. */
interface Layout {
  width: Width;
  bits?: PackedBits;
}

type Narrow = Uint8Array | Uint16Array | Uint32Array;

/** A buffer as stored: its encoding (undefined = raw) and its bytes. */
export interface StoredBuffer {
  encoding?: ColumnEncoding;
  bytes: Uint8Array;
}

const EMPTY = new Uint8Array(0);
/** The narrowest layout whose codes reach `top` (the largest code to store). */
function layoutFor(top: number): Layout {
  if (top <= 1) return { width: 1, bits: 1 };
  if (top <= 3) return { width: 1, bits: 2 };
  if (top <= 15) return { width: 1, bits: 4 };
  return { width: top <= 255 ? 1 : top <= 65535 ? 2 : top <= 2 ** 24 - 1 ? 3 : 4 };
}

/** The all-ones code of a layout (a grid's NaN). */
const allOnes = (l: Layout): number => 2 ** (l.bits ?? 8 * l.width) - 1;

/** An array to fill with a layout's codes before packing: one byte a value under a byte, u32 for 3 bytes. */
const fillArray = (l: Layout, n: number): Narrow => (l.width === 1 ? new Uint8Array(n) : l.width === 2 ? new Uint16Array(n) : new Uint32Array(n));

/** The stored bytes of fillArray's codes. */
function packed(l: Layout, codes: Narrow): Uint8Array {
  if (l.bits) return packBits(codes as Uint8Array, l.bits);
  if (l.width === 3) return pack24(codes as Uint32Array);
  return bytesOf(codes);
}

const bytesOf = (a: ArrayBufferView): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** The stored form of a column's values: the smallest verified encoding, else the raw bytes (a view). */
export function encodeValues(values: Float64Array): StoredBuffer {
  if (values.length === 0) return { bytes: EMPTY };
  const range = asRange(values);
  if (range) return { encoding: range, bytes: EMPTY };
  const grid = onGrid(values);
  if (grid) return grid;
  return { bytes: bytesOf(values) };
}

/** The stored form of dictionary codes (-1 = missing): code + 1 in u8 or u16, else the raw bytes. */
export function encodeCodes(codes: Int32Array): StoredBuffer {
  let min = 0;
  let max = -1;
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i];
    if (c < min) min = c;
    if (c > max) max = c;
  }
  if (codes.length === 0 || min < -1 || max + 1 > 2 ** 24 - 1) return { bytes: bytesOf(codes) };
  const layout = layoutFor(max + 1);
  const out = fillArray(layout, codes.length);
  for (let i = 0; i < codes.length; i++) out[i] = codes[i] + 1;
  const encoding: ColumnEncoding = { type: "shifted", width: layout.width as 1 | 2 | 3 };
  if (layout.bits) encoding.bits = layout.bits;
  return { encoding, bytes: packed(layout, out) };
}

/** Bytes of a stored buffer of `rows` rows (0 for a range); `raw`, bytes a row without an encoding. */
export function storedLength(encoding: ColumnEncoding | undefined, raw: 4 | 8, rows: number): number {
  if (!encoding) return rows * raw;
  if (encoding.type === "range") return 0;
  return encoding.bits ? packedLength(encoding.bits, rows) : rows * encoding.width;
}

/** Whether an encoding uses a layout that came after version 2 (bits under a byte, 3 bytes):
 * a frame holding one is written as version 3, so that a reader from before says "unsupported
 * version" instead of misreading it. */
export const needsVersion3 = (e: ColumnEncoding | undefined): boolean =>
  e !== undefined && e.type !== "range" && (e.bits !== undefined || e.width === 3);

/** A width and optional bits a decoder knows: bits only under a byte; bits and 3 bytes only from version 3. */
const validLayout = (width: unknown, bits: unknown, widths: readonly number[], version: number): boolean =>
  widths.includes(width as number) &&
  (version >= 3 || width !== 3) &&
  (bits === undefined || (version >= 3 && width === 1 && (bits === 1 || bits === 2 || bits === 4)));

/** Whether a header's encoding is one this decoder knows in a frame of `version`, with sane
 * parameters (a corrupt header is refused). */
export function validEncoding(e: unknown, storage: "numeric" | "dictionary", version: number): e is ColumnEncoding {
  if (typeof e !== "object" || e === null) return false;
  const x = e as Record<string, unknown>;
  if (storage === "dictionary") return x.type === "shifted" && validLayout(x.width, x.bits, [1, 2, 3], version);
  if (x.type === "range") return Number.isSafeInteger(x.start);
  return (
    x.type === "grid" &&
    validLayout(x.width, x.bits, [1, 2, 3, 4], version) &&
    Number.isSafeInteger(x.lo) &&
    typeof x.times === "number" &&
    typeof x.step === "number" &&
    (x.times > 0 || x.step > 0)
  );
}

/** The column's values from their stored bytes (aligned to the encoding's width), widened into a
 * new array, or into `out` from row `at` (a segment of a longer column). */
export function decodeValues(
  encoding: ColumnEncoding,
  bytes: Uint8Array,
  rows: number,
  out: Float64Array = new Float64Array(rows),
  at = 0,
): Float64Array {
  if (encoding.type === "range") {
    for (let i = 0; i < rows; i++) out[at + i] = encoding.start + i;
    return out;
  }
  if (encoding.type !== "grid") throw new Error(`decodeFrame: a ${encoding.type} encoding of numeric values`);
  const { times, step, lo } = encoding;
  const stored = unpacked(encoding, bytes, rows);
  const missing = allOnes(encoding);
  // Two loops with the division or product written out: the hot loop of a large column.
  if (times) {
    for (let i = 0; i < rows; i++) {
      const u = stored[i];
      out[at + i] = u === missing ? Number.NaN : (u + lo) / times;
    }
  } else {
    for (let i = 0; i < rows; i++) {
      const u = stored[i];
      out[at + i] = u === missing ? Number.NaN : (u + lo) * step;
    }
  }
  return out;
}

/** Dictionary codes from their stored bytes, widened into a new Int32Array, or into `out` from row `at`. */
export function decodeCodes(encoding: ColumnEncoding, bytes: Uint8Array, rows: number, out: Int32Array = new Int32Array(rows), at = 0): Int32Array {
  if (encoding.type !== "shifted") throw new Error(`decodeFrame: a ${encoding.type} encoding of dictionary codes`);
  const stored = unpacked(encoding, bytes, rows);
  for (let i = 0; i < rows; i++) out[at + i] = stored[i] - 1;
  return out;
}

/** The stored codes one an element: a view of u8/u16/u32 bytes (aligned), else unpacked. */
function unpacked(l: Layout, bytes: Uint8Array, rows: number): Narrow {
  if (l.bits) return unpackBits(bytes, l.bits, rows);
  if (l.width === 1) return bytes.subarray(0, rows);
  if (l.width === 2) return new Uint16Array(bytes.buffer, bytes.byteOffset, rows);
  if (l.width === 3) return unpack24(bytes, rows);
  return new Uint32Array(bytes.buffer, bytes.byteOffset, rows);
}

/** start, start + 1, …: checked value by value, including that a 0 is +0. */
function asRange(values: Float64Array): ColumnEncoding | undefined {
  const start = values[0];
  const n = values.length;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(start + n)) return undefined;
  for (let i = 0; i < n; i++) if (values[i] !== start + i) return undefined;
  const zeroAt = -start;
  if (zeroAt >= 0 && zeroAt < n && 1 / values[zeroAt] < 0) return undefined;
  return { type: "range", start };
}

// The NaN a Float64Array holds after `= NaN` (what decoding writes), as its two 32-bit halves.
const NAN_BITS = new Uint32Array(new Float64Array([Number.NaN]).buffer);

/** The column on the coarsest grid (via value-grid's search) that fits u32 with a code left for NaN. */
function onGrid(values: Float64Array): StoredBuffer | undefined {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let missing = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== v) missing++;
    else {
      // ±Infinity and −0 have no grid point that decodes to them.
      if (v === 0 && 1 / v < 0) return undefined;
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  if (missing > 0 && !canonicalNaNs(values)) return undefined;
  if (missing === values.length) {
    // All missing: one code, the NaN one.
    const stored = new Uint8Array(values.length).fill(255);
    return { encoding: { type: "grid", times: 1, step: 0, lo: 0, width: 1 }, bytes: stored };
  }
  if (!Number.isFinite(min) || !Number.isFinite(max)) return undefined;
  const found = gridSearch(values, min, max, 2 ** 32 - 1, (grid, lo, points) => {
    // Codes 0 .. points − 1, and the all-ones code for NaN above them.
    const layout = layoutFor(points);
    const stored = fillArray(layout, values.length);
    const off = fillGrid(values, grid, lo, stored, allOnes(layout));
    return off === undefined ? { stored, layout } : off;
  });
  if (!found) return undefined;
  const { grid, lo, stored, layout } = found;
  const encoding: ColumnEncoding = { type: "grid", times: grid.times, step: grid.step, lo, width: layout.width };
  if (layout.bits) encoding.bits = layout.bits;
  return { encoding, bytes: packed(layout, stored) };
}

/** Writes k − lo (or `missingCode`) per row; the first value whose point does not give it back, else undefined. */
function fillGrid(values: Float64Array, grid: Grid, lo: number, stored: Narrow, missingCode: number): number | undefined {
  const { times, step } = grid;
  if (times) {
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v !== v) {
        stored[i] = missingCode;
        continue;
      }
      const k = Math.round(v * times);
      if (k / times !== v) return v;
      stored[i] = k - lo;
    }
  } else {
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v !== v) {
        stored[i] = missingCode;
        continue;
      }
      const k = v / step;
      if (k * step !== v || !Number.isInteger(k)) return v;
      stored[i] = k - lo;
    }
  }
  return undefined;
}

/** Whether every NaN in `values` has the bits decoding writes (payloads would be lost). */
function canonicalNaNs(values: Float64Array): boolean {
  const words = new Uint32Array(values.buffer, values.byteOffset, values.length * 2);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === v) continue;
    if (words[2 * i] !== NAN_BITS[0] || words[2 * i + 1] !== NAN_BITS[1]) return false;
  }
  return true;
}
