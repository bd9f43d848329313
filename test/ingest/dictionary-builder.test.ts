import { describe, expect, it } from "vitest";
import { spanHash } from "../../src/ingest/csv-tokenizer";
import { DictionaryBuilder } from "../../src/ingest/dictionary-builder";
import { normalizeCell } from "../../src/ml/values";

describe("DictionaryBuilder: codes in order of first appearance, whatever the path", () => {
  /** The reference: normalizeCell, then a Map from value to code. */
  function reference(cells: string[]): { dictionary: string[]; codes: number[]; missing: number } {
    const index = new Map<string, number>();
    const dictionary: string[] = [];
    let missing = 0;
    const codes = cells.map((raw) => {
      const s = normalizeCell(raw);
      if (s === null) {
        missing++;
        return -1;
      }
      let c = index.get(s);
      if (c === undefined) index.set(s, (c = dictionary.push(s) - 1));
      return c;
    });
    return { dictionary, codes, missing };
  }

  it("gives the reference's dictionary and codes for spans and strings: padding, missing markers, equal hashes", () => {
    // "Aa" and "BB" have the same polynomial hash (31·65 + 97 = 31·66 + 66), and so do their concatenations.
    const pool = [
      "Aa",
      "BB",
      "AaAa",
      "BBBB",
      "AaBB",
      "BBAa",
      " Aa",
      "Aa ",
      "NA",
      " NA ",
      "",
      " ",
      "null",
      "x",
      "\tx",
      "€",
      " € ",
      "yes",
      "Yes",
      "1.50",
    ];
    let seed = 5;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const cells = Array.from({ length: 20000 }, (_, i) =>
      i % 3 === 0 ? `v${Math.floor(random() * 3000)}` : pool[Math.floor(random() * pool.length)],
    );
    const want = reference(cells);
    const text = cells.join(",");
    const spans = new DictionaryBuilder(16);
    const strings = new DictionaryBuilder(16);
    let at = 0;
    for (const c of cells) {
      spans.pushSpan(text, at, at + c.length, spanHash(text, at, at + c.length));
      strings.push(c);
      at += c.length + 1;
    }
    for (const b of [spans, strings]) {
      expect(b.dictionary).toEqual(want.dictionary);
      expect(Array.from(b.finish())).toEqual(want.codes);
      expect(b.missingCount).toBe(want.missing);
    }
  });

  it("keeps working past the alias limit, and after finishInRowOrder", () => {
    const cells = Array.from({ length: 70000 }, (_, i) => ` p${i % 68000} `); // every one padded: an alias each
    const b = new DictionaryBuilder();
    const text = cells.join("|");
    let at = 0;
    for (const c of cells) {
      b.pushSpan(text, at, at + c.length, spanHash(text, at, at + c.length));
      at += c.length + 1;
    }
    const want = reference(cells);
    expect(b.dictionary).toEqual(want.dictionary);
    expect(Array.from(b.finish())).toEqual(want.codes);
  });
});
