import { describe, expect, it } from "vitest";
import { pack24, packBits, packedLength, unpack24, unpackBits } from "../../src/ingest/packed-ints";
import { seededRandom } from "../seeded-random";

describe("packed integers", () => {
  it("packs 1, 2 and 4 bits a value and unpacks the same values, for every length up to a few bytes past whole", () => {
    const random = seededRandom(5);
    for (const bits of [1, 2, 4] as const) {
      for (let n = 0; n <= 19; n++) {
        const values = Uint8Array.from({ length: n }, () => Math.floor(random() * 2 ** bits));
        if (n > 0) values[n - 1] = 2 ** bits - 1; // the all-ones code in the last, partly used byte
        const bytes = packBits(values, bits);
        expect(bytes.length).toBe(packedLength(bits, n));
        expect(unpackBits(bytes, bits, n)).toEqual(values);
      }
    }
  });

  it("lays values out little-endian within a byte", () => {
    expect([...packBits(Uint8Array.from([1, 0, 1, 1, 0, 0, 0, 1, 1]), 1)]).toEqual([0b10001101, 0b1]);
    expect([...packBits(Uint8Array.from([3, 0, 1, 2, 1]), 2)]).toEqual([0b10010011, 0b01]);
    expect([...packBits(Uint8Array.from([15, 2, 9]), 4)]).toEqual([0x2f, 0x09]);
  });

  it("stores values up to 2^24 − 1 in 3 bytes, low byte first", () => {
    const values = Uint32Array.from([0, 1, 255, 256, 65535, 65536, 2 ** 24 - 1, 1_234_567]);
    const bytes = pack24(values);
    expect(bytes.length).toBe(24);
    expect([...bytes.subarray(21, 24)]).toEqual([0x87, 0xd6, 0x12]);
    expect(unpack24(bytes, values.length)).toEqual(values);
  });
});
