/**
 * A fast path for vitest's deep equality (`toEqual`, `toStrictEqual`) on long arrays: typed arrays
 * equal byte for byte, and arrays of primitives equal element by element (`Object.is`, as vitest
 * compares primitives), are equal at once. Vitest's generic walk spent seconds on each of the
 * frames the reader tests compare (a third of the Node tests' time). Anything else, and every pair
 * that is not equal this way, goes to vitest's own comparison, which reports the difference.
 */
import { expect } from "vitest";

function equalArrays(a: unknown, b: unknown): boolean | undefined {
  if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b)) {
    if (a.constructor !== b.constructor || a.byteLength !== b.byteLength) return undefined;
    const same = Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
    return same || undefined;
  }
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length || a.length < 64) return undefined;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    // objects (asymmetric matchers among them) and holes are vitest's to judge
    if ((x !== null && typeof x === "object") || (y !== null && typeof y === "object") || !(i in a) || !(i in b)) return undefined;
    if (!Object.is(x, y)) return undefined;
  }
  return true;
}

expect.addEqualityTesters([equalArrays]);
