/**
 * Parquet's RLE/bit-packed hybrid (definition levels, dictionary indices) into a typed array: what
 * hyparquet's readRleBitPackedHybrid does, with bit-packed runs unpacked from a 32-bit buffer a
 * value at a time (hyparquet's loop takes a step per byte boundary as well as per value, and reads
 * each byte through a DataView). Any run that hyparquet would treat unusually (bytes past the end
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
      else unpackLevels(bytes, at, width, output, seen, seen + emit);
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

/** output[from...to) from the values bit-packed at `at`, `width` bits each. A function of its own
 * (two, to keep each to one array type), with nothing after its loop: see row-dictionary.ts. */
function unpack(bytes: Uint8Array, at: number, width: number, output: Int32Array, from: number, to: number): void {
  const mask = (1 << width) - 1;
  let buffer = 0;
  let bits = 0;
  for (let k = from, p = at; k < to; k++) {
    while (bits < width) {
      buffer |= bytes[p++] << bits;
      bits += 8;
    }
    output[k] = buffer & mask;
    buffer >>>= width;
    bits -= width;
  }
}

function unpackLevels(bytes: Uint8Array, at: number, width: number, output: Uint8Array, from: number, to: number): void {
  const mask = (1 << width) - 1;
  let buffer = 0;
  let bits = 0;
  for (let k = from, p = at; k < to; k++) {
    while (bits < width) {
      buffer |= bytes[p++] << bits;
      bits += 8;
    }
    output[k] = buffer & mask;
    buffer >>>= width;
    bits -= width;
  }
}
