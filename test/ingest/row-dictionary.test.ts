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

  it("renumbers a million distinct values written out of order (no argument-spread stack overflow)", () => {
    const rows = 1_000_000;
    const d = new RowDictionary(rows);
    for (let r = rows - 1; r >= 0; r--) d.setAt(r, `v${r}`);
    const codes = d.finishInRowOrder();
    expect(codes[0]).toBe(0);
    expect(codes[rows - 1]).toBe(rows - 1);
    expect(d.dictionary[0]).toBe("v0");
    expect(d.dictionary[rows - 1]).toBe(`v${rows - 1}`);
  });

  it("settles rows in place into their final codes as they are done, with the same result as at the end", () => {
    const write = (d: RowDictionary, from: number, to: number) => {
      for (let r = from; r < to; r++) d.setAt(r, ["z", "y", "", "x", "y", "w"][(r * 7) % 6]);
    };
    const once = new RowDictionary(12);
    write(once, 0, 12);
    const whole = Array.from(once.finishInRowOrder());
    const settled = new RowDictionary(12);
    settled.codeOf("w"); // an entry that appears only later gets its code when its row is settled
    write(settled, 0, 5);
    expect(Array.from(settled.settle(5).subarray(0, 5))).toEqual(whole.slice(0, 5));
    write(settled, 5, 12);
    expect(Array.from(settled.finishInRowOrder())).toEqual(whole);
    expect(settled.dictionary).toEqual(once.dictionary);
  });
});
