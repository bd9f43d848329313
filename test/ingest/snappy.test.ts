import { snappyUncompress as hyparquetSnappy } from "hyparquet/src/snappy.js";
import { snappyCompress } from "hyparquet-writer/src/snappy.js";
import { describe, expect, it } from "vitest";
import { snappyPage, snappyUncompress } from "../../src/ingest/snappy";

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

/** Bytes mixing runs, repeats of earlier stretches (copies, overlapping ones) and noise (literals). */
function sample(rand: () => number, size: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; ) {
    const kind = rand();
    const len = Math.min(size - i, 1 + Math.floor(rand() * (rand() < 0.2 ? 300 : 40)));
    if (kind < 0.3 && i > 0) {
      const from = Math.floor(rand() * i);
      for (let k = 0; k < len; k++) out[i + k] = out[from + k];
    } else if (kind < 0.5) out.fill(Math.floor(rand() * 256), i, i + len);
    else for (let k = 0; k < len; k++) out[i + k] = Math.floor(rand() * 256);
    i += len;
  }
  return out;
}

/** The output or error of one decoder. */
function run(decode: typeof snappyUncompress, input: Uint8Array, size: number) {
  const output = new Uint8Array(size);
  try {
    decode(input, output);
    return { output: Array.from(output) };
  } catch (e) {
    return { error: String(e) };
  }
}

describe("snappyUncompress", () => {
  it("decompresses what a snappy compressor wrote (literals short and long, copies, overlapping ones)", () => {
    const rand = random(3);
    for (let trial = 0; trial < 200; trial++) {
      const data = sample(rand, Math.floor(rand() * 5000));
      const compressed = snappyCompress(data);
      expect(snappyPage(compressed, data.length)).toEqual(data);
    }
  });

  it("fails where hyparquet's fails, with its messages, and agrees on what it accepts", () => {
    const rand = random(5);
    let errors = 0;
    for (let trial = 0; trial < 3000; trial++) {
      const data = sample(rand, Math.floor(rand() * 600));
      let input = snappyCompress(data);
      if (trial % 3 === 0) input = input.slice(0, Math.floor(rand() * input.length));
      else if (trial % 3 === 1) input = input.map((b) => (rand() < 0.05 ? Math.floor(rand() * 256) : b));
      else input = Uint8Array.from({ length: Math.floor(rand() * 80) }, () => Math.floor(rand() * 256));
      // No literal of a 4-byte length (tag 0xfc): a corrupt one can be negative, which sends both
      // decoders back and forth in the input for seconds before they fail.
      if (trial % 3 !== 0) input = input.map((b) => (b === 0xfc ? 0xf8 : b));
      // the declared size, or a wrong one
      const size = rand() < 0.7 ? data.length : Math.floor(rand() * 700);
      const expected = run(hyparquetSnappy, input, size);
      if (expected.error) errors++;
      expect(run(snappyUncompress, input, size)).toEqual(expected);
    }
    expect(errors).toBeGreaterThan(1000);
  });
});
