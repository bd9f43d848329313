import { describe, expect, it } from "vitest";
import { DictionaryBuilder } from "../../src/ingest/dictionary-builder";
import { NumericBuilder } from "../../src/ingest/numeric-builder";

// finish() hands out a view of the builder's array when little of it is unused (the room reserved
// for the expected rows), a copy otherwise; either way exactly the pushed cells.
describe("the builders' finish", () => {
  it("a view with at most 1/16 unused, a copy with more, the same values either way", () => {
    for (const [room, pushed, view] of [
      [1024, 1024, true],
      [1024, 960, true],
      [1024, 959, false],
      [1024, 600, false],
      [16, 0, false],
    ] as const) {
      const numbers = new NumericBuilder(room);
      const codes = new DictionaryBuilder(room);
      for (let i = 0; i < pushed; i++) {
        numbers.push(String(i / 4));
        codes.push(`v${i % 7}`);
      }
      const values = numbers.finish();
      const got = codes.finish();
      expect(Array.from(values)).toEqual(Array.from({ length: pushed }, (_, i) => i / 4));
      expect(Array.from(got)).toEqual(Array.from({ length: pushed }, (_, i) => i % 7));
      expect(values.buffer.byteLength === room * 8, `numbers ${room} ${pushed}`).toBe(view);
      expect(got.buffer.byteLength === room * 4, `codes ${room} ${pushed}`).toBe(view);
    }
  });
});
