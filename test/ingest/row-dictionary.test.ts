import { describe, expect, it } from "vitest";
import { RowDictionary } from "../../src/ingest/row-dictionary";

describe("RowDictionary", () => {
  it("gives values added without the Map (codeOfDistinct) the same codes once codeOf is used", () => {
    const d = new RowDictionary(6);
    expect([d.codeOfDistinct("a"), d.codeOfDistinct("b")]).toEqual([0, 1]);
    expect([d.codeOf(" b "), d.codeOf("NA"), d.codeOf("c")]).toEqual([1, -1, 2]);
    expect(d.codeOfDistinct("a")).toBe(0); // the Map is in use now
    for (const [row, code] of [5, 3, 0, 1].map((r, i) => [r, i % 3])) d.setCode(row, code);
    d.setCode(2, -1);
    expect(d.missingCount).toBe(2);
    expect(Array.from(d.finishInRowOrder())).toEqual([0, 1, -1, 2, -1, 1]);
    expect(d.dictionary).toEqual(["c", "a", "b"]);
  });
});
