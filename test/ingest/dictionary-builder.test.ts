import { describe, expect, it } from "vitest";
import { DictionaryBuilder } from "../../src/ingest/dictionary-builder";

describe("DictionaryBuilder.finishInRowOrder", () => {
  it("renumbers a million distinct values written out of order (no argument-spread stack overflow)", () => {
    const rows = 1_000_000;
    const b = DictionaryBuilder.forRows(rows);
    for (let r = rows - 1; r >= 0; r--) b.setAt(r, `v${r}`);
    const codes = b.finishInRowOrder();
    expect(codes[0]).toBe(0);
    expect(codes[rows - 1]).toBe(rows - 1);
    expect(b.dictionary[0]).toBe("v0");
    expect(b.dictionary[rows - 1]).toBe(`v${rows - 1}`);
  });
});
