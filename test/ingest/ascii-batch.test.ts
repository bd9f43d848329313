import { describe, expect, it } from "vitest";
import { AsciiBatch } from "../../src/ingest/ascii-batch";

describe("AsciiBatch", () => {
  it("sets each added value's string at flush, in any id order, past its buffers' growth", () => {
    const bytes = new TextEncoder().encode("xx-alpha-b--");
    const strings = ["keep", "", ""];
    const batch = new AsciiBatch();
    batch.add(2, bytes, 3, 5); // "alpha"
    batch.add(1, bytes, 9, 1); // "b"
    batch.flush(strings);
    expect(strings).toEqual(["keep", "b", "alpha"]);
    const many = Array.from({ length: 3000 }, (_, i) => `value_${i}`);
    const all = new TextEncoder().encode(many.join(""));
    const out: string[] = [];
    for (let i = 0, at = 0; i < many.length; at += many[i++].length) batch.add(i, all, at, many[i].length);
    batch.flush(out);
    expect(out).toEqual(many);
  });
});
