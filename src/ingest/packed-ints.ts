/**
 * Small unsigned integers stored tighter than a typed array allows: 1, 2 or 4 bits a value (a
 * boolean, a category of a few values) or 3 bytes (up to 2^24 − 1: a code among millions of
 * categories, a number on a grid of 10^7 points). Little-endian: value i sits at bit
 * (i · bits) mod 8 of byte ⌊i · bits / 8⌋, or in bytes 3i … 3i + 2, low byte first.
 */

export type PackedBits = 1 | 2 | 4;

/** Bytes of `rows` values at `bits` each. */
export const packedLength = (bits: PackedBits, rows: number): number => Math.ceil((rows * bits) / 8);

/** Values (each below 2^bits) packed `bits` a value. */
export function packBits(values: Uint8Array, bits: PackedBits): Uint8Array {
  const out = new Uint8Array(packedLength(bits, values.length));
  const perByte = 8 / bits;
  for (let i = 0; i < values.length; i++) out[(i / perByte) | 0] |= values[i] << ((i % perByte) * bits);
  return out;
}

/** The `rows` values of packBits' bytes, one a byte. */
export function unpackBits(bytes: Uint8Array, bits: PackedBits, rows: number): Uint8Array {
  const out = new Uint8Array(rows);
  const perByte = 8 / bits;
  const mask = (1 << bits) - 1;
  const whole = Math.floor(rows / perByte);
  // A whole byte at a time: the loop of a 10 M-row column.
  for (let b = 0, i = 0; b < whole; b++) {
    let byte = bytes[b];
    for (let k = 0; k < perByte; k++, i++) {
      out[i] = byte & mask;
      byte >>>= bits;
    }
  }
  for (let i = whole * perByte; i < rows; i++) out[i] = (bytes[(i / perByte) | 0] >>> ((i % perByte) * bits)) & mask;
  return out;
}

/** Values (each below 2^24) in 3 bytes each. */
export function pack24(values: Uint32Array): Uint8Array {
  const out = new Uint8Array(values.length * 3);
  for (let i = 0, at = 0; i < values.length; i++, at += 3) {
    const v = values[i];
    out[at] = v;
    out[at + 1] = v >>> 8;
    out[at + 2] = v >>> 16;
  }
  return out;
}

/** The `rows` values of pack24's bytes. */
export function unpack24(bytes: Uint8Array, rows: number): Uint32Array {
  const out = new Uint32Array(rows);
  for (let i = 0, at = 0; i < rows; i++, at += 3) out[i] = bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16);
  return out;
}
