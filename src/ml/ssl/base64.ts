/**
 * Typed arrays as base64 text (little-endian, standard alphabet with padding), so network weights
 * and tree arrays travel inside JSON compactly (about 5.3 characters per float32 instead of ~10
 * for a decimal literal) and decode bit-exactly on every runtime. No Buffer/btoa needed.
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const LOOKUP = (() => {
  const t = new Int16Array(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) t[ALPHABET.charCodeAt(i)] = i;
  return t;
})();

export function bytesToBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  const CHUNK = 3 * 4096;
  for (let start = 0; start < bytes.length; start += CHUNK) {
    const end = Math.min(bytes.length, start + CHUNK);
    let s = "";
    for (let i = start; i < end; i += 3) {
      const b0 = bytes[i];
      const b1 = i + 1 < end ? bytes[i + 1] : 0;
      const b2 = i + 2 < end ? bytes[i + 2] : 0;
      s += ALPHABET[b0 >> 2] + ALPHABET[((b0 & 3) << 4) | (b1 >> 4)];
      s += i + 1 < end ? ALPHABET[((b1 & 15) << 2) | (b2 >> 6)] : "=";
      s += i + 2 < end ? ALPHABET[b2 & 63] : "=";
    }
    parts.push(s);
  }
  return parts.join("");
}

/** Inverse of bytesToBase64; null when the text is not such an encoding. */
export function base64ToBytes(text: string): Uint8Array | null {
  if (typeof text !== "string" || text.length % 4 !== 0) return null;
  let pad = 0;
  if (text.endsWith("==")) pad = 2;
  else if (text.endsWith("=")) pad = 1;
  const nBytes = (text.length / 4) * 3 - pad;
  const bytes = new Uint8Array(nBytes);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const c0 = sextet(text, i);
    const c1 = sextet(text, i + 1);
    const last = i + 4 === text.length;
    const c2 = last && pad === 2 ? 0 : sextet(text, i + 2);
    const c3 = last && pad >= 1 ? 0 : sextet(text, i + 3);
    if ((c0 | c1 | c2 | c3) < 0) return null;
    const n = (c0 << 18) | (c1 << 12) | (c2 << 6) | c3;
    if (o < nBytes) bytes[o++] = n >> 16;
    if (o < nBytes) bytes[o++] = (n >> 8) & 255;
    if (o < nBytes) bytes[o++] = n & 255;
  }
  return bytes;
}

export function float32ToBase64(values: ArrayLike<number>): string {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat32(i * 4, values[i], true);
  return bytesToBase64(bytes);
}

/** Inverse of float32ToBase64; null when the text is not such an encoding (or `expected` floats). */
export function base64ToFloat32(text: string, expected?: number): Float32Array | null {
  const bytes = base64ToBytes(text);
  if (!bytes || bytes.length % 4 !== 0) return null;
  if (expected !== undefined && bytes.length !== expected * 4) return null;
  const view = new DataView(bytes.buffer);
  const out = new Float32Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

export function int32ToBase64(values: ArrayLike<number>): string {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < values.length; i++) view.setInt32(i * 4, values[i], true);
  return bytesToBase64(bytes);
}

/** Inverse of int32ToBase64; null when the text is not such an encoding (or `expected` integers). */
export function base64ToInt32(text: string, expected?: number): Int32Array | null {
  const bytes = base64ToBytes(text);
  if (!bytes || bytes.length % 4 !== 0) return null;
  if (expected !== undefined && bytes.length !== expected * 4) return null;
  const view = new DataView(bytes.buffer);
  const out = new Int32Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getInt32(i * 4, true);
  return out;
}

function sextet(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c < 128 ? LOOKUP[c] : -1;
}
