import { readRleBitPackedHybrid } from "hyparquet/src/encoding.js";
import { describe, expect, it } from "vitest";
import { allOnes, readHybrid } from "../../src/ingest/rle-hybrid";

/** A seeded generator (mulberry32): the same cases every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

/** A valid hybrid block of random runs at `width` holding at least `values` values. */
function encode(rand: () => number, width: number, values: number): number[] {
  const out: number[] = [];
  const max = 2 ** width;
  for (let seen = 0; seen < values; ) {
    if (rand() < 0.5) {
      const count = 1 + Math.floor(rand() * 100); // from 64 on, a header of two bytes
      out.push(...varint(count << 1));
      const v = Math.floor(rand() * max);
      for (let i = 0; i < (width + 7) >> 3; i++) out.push((v >>> (8 * i)) & 0xff);
      seen += count;
    } else {
      const groups = 1 + Math.floor(rand() * 6);
      out.push(...varint((groups << 1) | 1));
      let buffer = 0n;
      for (let k = 0; k < groups * 8; k++) buffer |= BigInt(Math.floor(rand() * max)) << BigInt(k * width);
      for (let i = 0; i < groups * width; i++) out.push(Number((buffer >> BigInt(8 * i)) & 0xffn));
      seen += groups * 8;
    }
  }
  return out;
}

/** Output, reader offset and error of one reader on `bytes` read from `offset`. */
function run(read: typeof readHybrid, bytes: Uint8Array, offset: number, width: number, n: number, length: number | undefined, int32: boolean) {
  const output = int32 ? new Int32Array(n) : new Uint8Array(n);
  const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset };
  try {
    read(reader, width, output, length);
    return { output: Array.from(output), offset: reader.offset };
  } catch (e) {
    return { error: String(e) };
  }
}

describe("readHybrid", () => {
  it("reads what hyparquet's readRleBitPackedHybrid reads, at every width, with or without a length prefix", () => {
    const rand = random(13);
    for (let width = 1; width <= 26; width++) {
      for (let trial = 0; trial < 20; trial++) {
        const n = Math.floor(rand() * 300);
        const block = encode(rand, Math.max(width, 1), n + Math.floor(rand() * 20));
        const prefixed = rand() < 0.5;
        const body = prefixed ? [block.length & 0xff, (block.length >> 8) & 0xff, 0, 0, ...block] : block;
        const bytes = new Uint8Array([7, 7, ...body, 9]); // read from offset 2, a byte after
        const length = prefixed ? undefined : block.length;
        for (const int32 of [true, false]) {
          const expected = run(readRleBitPackedHybrid, bytes, 2, width, n, length, int32);
          expect(run(readHybrid, bytes, 2, width, n, length, int32)).toEqual(expected);
        }
      }
    }
  });

  it("agrees with it on corrupt blocks too: truncated, random bytes (results, offsets and errors)", () => {
    const rand = random(7);
    for (let trial = 0; trial < 3000; trial++) {
      const width = 1 + Math.floor(rand() * 24);
      const n = Math.floor(rand() * 100);
      let block = encode(rand, width, n);
      if (trial % 3 === 0) block = block.slice(0, Math.floor(rand() * block.length));
      else if (trial % 3 === 1) block = block.map((b) => (rand() < 0.1 ? Math.floor(rand() * 256) : b));
      else block = Array.from({ length: Math.floor(rand() * 40) }, () => Math.floor(rand() * 256));
      // Bytes below 0x80, so that run headers are one byte: a corrupt header of several bytes can
      // be an RLE run of 2^31 values, each of which hyparquet writes (past the output's end too),
      // which takes minutes. Headers of two bytes are in the valid blocks above.
      block = block.map((b) => b & 0x7f);
      const bytes = new Uint8Array(block);
      const length = rand() < 0.5 ? undefined : Math.floor(rand() * (block.length + 4));
      const expected = run(readRleBitPackedHybrid, bytes, 0, width, n, length, true);
      expect(run(readHybrid, bytes, 0, width, n, length, true)).toEqual(expected);
    }
  });

  it("allOnes: true only where readHybrid reads n ones, the reader then left where readHybrid leaves it", () => {
    const rand = random(11);
    let trues = 0;
    for (let trial = 0; trial < 2000; trial++) {
      const n = 1 + Math.floor(rand() * 150);
      const ones = rand() < 0.5 ? [...varint((n + Math.floor(rand() * 3)) << 1), 1] : []; // a run of n or more ones first
      const block = [...ones, ...encode(rand, 1, n)].map((b) => (rand() < 0.03 ? Math.floor(rand() * 256) : b));
      const bytes = new Uint8Array([block.length & 0xff, (block.length >> 8) & 0xff, 0, 0, ...block]);
      const reader = { view: new DataView(bytes.buffer), offset: 0 };
      const expected = run(readHybrid, bytes, 0, 1, n, undefined, false);
      if (!allOnes(reader, n)) {
        expect(reader.offset).toBe(0);
        continue;
      }
      trues++;
      expect(expected).toEqual({ output: new Array(n).fill(1), offset: reader.offset });
    }
    expect(trues).toBeGreaterThan(500);
  });
});
