/**
 * Parquet's RLE/bit-packed hybrid (definition levels, dictionary indices) into a typed array: what
 * hyparquet's readRleBitPackedHybrid does, with each bit-packed value taken from the four bytes at
 * its first bit, width-1 levels a byte's eight at a time (hyparquet's loop takes a step per byte
 * boundary as well as per value, and reads each byte through a DataView). Any run that hyparquet would treat unusually (bytes past the end
 * of the page, an empty or negative run, widths past 24 bits) sends the whole block back to
 * hyparquet's function from its start, so that results and errors are hyparquet's own.
 */
import { readRleBitPackedHybrid } from "hyparquet/src/encoding.js";

interface DataReader {
  view: DataView;
  offset: number;
}

/** As readRleBitPackedHybrid(reader, width, output, length): `length` bytes of runs, or, when
 * undefined, a 4-byte length first. */
export function readHybrid(reader: DataReader, width: number, output: Uint8Array | Int32Array, length?: number): void {
  const start = reader.offset;
  if (width < 1 || width > 24 || !readFast(reader, width, output, length)) {
    reader.offset = start;
    readRleBitPackedHybrid(reader, width, output, length);
  }
}

/**
 * Whether the width-1 block at the reader, 4-byte length first (a flat column's definition
 * levels), starts with an RLE run of at least `n` ones: then readHybrid would read `n` ones (all
 * rows present, as DuckDB writes a column without nulls, every column being nullable there), and
 * the reader is moved past the block as readHybrid moves it. Otherwise nothing is read.
 */
export function allOnes(reader: DataReader, n: number): boolean {
  const { view } = reader;
  const end = view.byteLength;
  const start = reader.offset;
  if (n < 1 || start + 4 > end) return false;
  // the run's header, a varint (as readFast reads it)
  let at = start + 4;
  let header = 0;
  let shift = 0;
  let byte: number;
  do {
    if (at >= end) return false;
    byte = view.getUint8(at++);
    header |= (byte & 0x7f) << shift;
    shift += 7;
  } while (byte & 0x80);
  if (header & 1 || header >>> 1 < n || at >= end || view.getUint8(at) !== 1) return false;
  reader.offset = start + 4 + view.getUint32(start, true);
  return true;
}

/** False (output and reader.offset then undefined) where hyparquet's reading may differ. */
function readFast(reader: DataReader, width: number, output: Uint8Array | Int32Array, length: number | undefined): boolean {
  const { view } = reader;
  const end = view.byteLength;
  let at = reader.offset;
  if (length === undefined) {
    if (at + 4 > end) return false;
    length = view.getUint32(at, true);
    at += 4;
  }
  const blockStart = at;
  const bytes = new Uint8Array(view.buffer, view.byteOffset, end);
  const valueBytes = (width + 7) >> 3;
  const n = output.length;
  let seen = 0;
  while (seen < n) {
    // the run's header, a varint (as hyparquet's readVarInt, shifts wrapping alike)
    let header = 0;
    let shift = 0;
    let byte: number;
    do {
      if (at >= end) return false;
      byte = bytes[at++];
      header |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    if (header & 1) {
      const count = (header >> 1) << 3;
      const size = (count / 8) * width; // in floating point: runs of 2^28 values and more exist in corrupt files
      if (count <= 0 || at + size > end) return false;
      const emit = Math.min(count, n - seen);
      if (output instanceof Int32Array) unpack(bytes, at, width, output, seen, seen + emit);
      else if (width === 1) unpackBits(bytes, at, output, seen, seen + emit);
      else return false; // levels of nested columns: hyparquet's
      at += size;
      seen += emit;
    } else {
      const count = header >>> 1;
      if (count === 0 || at + valueBytes > end) return false;
      let value = 0;
      for (let i = 0; i < valueBytes; i++) value |= bytes[at++] << (i << 3);
      output.fill(value, seen, Math.min(seen + count, n));
      seen += count;
    }
  }
  reader.offset = blockStart + length;
  return true;
}

// The loops below are functions of their own, each to one array type, with nothing after its
// loop: see row-dictionary.ts (V8 compiles a long loop while it runs; code after it that has not
// run yet is thrown away).

/** output[from...to) from the values bit-packed at `at`, `width` (at most 24) bits each: value k
 * from the four bytes at its first bit's byte, shifted, masked (no loop per byte). */
function unpack(bytes: Uint8Array, at: number, width: number, output: Int32Array, from: number, to: number): void {
  // values whose four bytes lie within `bytes`; those after them first, byte by byte
  const fits = at + 3 < bytes.length ? Math.floor(((bytes.length - 4 - at) * 8 + 7) / width) + 1 : 0;
  const end = Math.min(to, from + fits);
  if (end < to) unpackNearEnd(bytes, at, width, output, from, end, to);
  const mask = (1 << width) - 1;
  for (let k = from, pos = 0; k < end; k++, pos += width) {
    const b = at + (pos >>> 3);
    output[k] = ((bytes[b] | (bytes[b + 1] << 8) | (bytes[b + 2] << 16) | (bytes[b + 3] << 24)) >>> (pos & 7)) & mask;
  }
}

/** unpack's values start...to of the run starting at `from`, without reading past `bytes`. */
function unpackNearEnd(bytes: Uint8Array, at: number, width: number, output: Int32Array, from: number, start: number, to: number): void {
  const mask = (1 << width) - 1;
  for (let k = start, pos = (start - from) * width; k < to; k++, pos += width) {
    const b = at + (pos >>> 3);
    let word = 0;
    for (let i = 0; i < 4 && b + i < bytes.length; i++) word |= bytes[b + i] << (8 * i);
    output[k] = (word >>> (pos & 7)) & mask;
  }
}

/** Width-1 values (definition levels of a flat column) at `at` into output[from...to), a byte's
 * eight at a time. */
function unpackBits(bytes: Uint8Array, at: number, output: Uint8Array, from: number, to: number): void {
  const whole = from + ((to - from) & ~7); // the last byte's first values (to - whole < 8) first
  for (let k = whole, shift = 0; k < to; k++, shift++) output[k] = (bytes[at + ((whole - from) >> 3)] >> shift) & 1;
  for (let k = from, p = at; k < whole; k += 8) {
    const b = bytes[p++];
    output[k] = b & 1;
    output[k + 1] = (b >> 1) & 1;
    output[k + 2] = (b >> 2) & 1;
    output[k + 3] = (b >> 3) & 1;
    output[k + 4] = (b >> 4) & 1;
    output[k + 5] = (b >> 5) & 1;
    output[k + 6] = (b >> 6) & 1;
    output[k + 7] = b >>> 7;
  }
}
