import { describe, expect, it } from "vitest";
import { sortedPresent, sortUint32 } from "../../src/ml/radix-sort";
import { seededRandom } from "../seeded-random";

// The profile relies on these orders being exactly Float64Array.prototype.sort's (compared with
// Object.is: −0 before +0, ±Infinity at the ends, subnormals in place) and Uint32Array's.

const SPECIAL = [0, -0, Infinity, -Infinity, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, -Number.MAX_VALUE, 1, -1, 2 ** -1074, 2 ** 1023];

describe("sortedPresent", () => {
  it("is the sorted copy of the present values, bit for bit", () => {
    const r = seededRandom(11);
    const makers: Array<() => number> = [
      () => (r() - 0.5) * 1e6,
      () => SPECIAL[Math.floor(r() * SPECIAL.length)],
      () => (r() < 0.2 ? NaN : r() < 0.5 ? -0 : 0),
      () => Math.floor(r() * 3) - 1,
      () => (r() - 0.5) * 10 ** Math.floor(r() * 600 - 300),
      () => 42,
    ];
    for (const make of makers) {
      for (const n of [0, 1, 2, 100, 5000]) {
        const values = new Float64Array(n);
        for (let i = 0; i < n; i++) values[i] = r() < 0.05 ? NaN : make();
        const copy = values.slice();
        const want = values.filter((v) => !Number.isNaN(v)).sort();
        const got = sortedPresent(values);
        expect(got.length).toBe(want.length);
        for (let i = 0; i < want.length; i++) if (!Object.is(got[i], want[i])) expect([i, got[i]]).toEqual([i, want[i]]);
        expect(values).toEqual(copy);
      }
    }
  });
});

describe("sortUint32", () => {
  it("sorts keys of every width", () => {
    const r = seededRandom(12);
    for (const width of [1, 11, 12, 22, 23, 32]) {
      for (const n of [0, 1, 1000]) {
        const keys = Uint32Array.from({ length: n }, () => Math.floor(r() * 2 ** width));
        const want = keys.slice().sort();
        expect(sortUint32(keys)).toEqual(want);
      }
    }
  });
});
