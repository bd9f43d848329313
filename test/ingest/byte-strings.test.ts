import { describe, expect, it } from "vitest";
import { ByteStrings } from "../../src/ingest/byte-strings";

/** A PLAIN BYTE_ARRAY page: each value's 4-byte little-endian length, then its UTF-8 bytes. */
function plainPage(values: string[]): Uint8Array {
  const parts = values.map((v) => new TextEncoder().encode(v));
  const page = new Uint8Array(parts.reduce((s, p) => s + 4 + p.length, 0));
  let at = 0;
  for (const p of parts) {
    new DataView(page.buffer).setUint32(at, p.length, true);
    page.set(p, at + 4);
    at += 4 + p.length;
  }
  return page;
}

describe("ByteStrings", () => {
  it("gives equal bytes one id across pages, and decodes each distinct value once", () => {
    const b = new ByteStrings();
    const many = Array.from({ length: 20000 }, (_, i) => `v${i % 7000}`); // past several table growths
    const ids = [...b.readPage(plainPage(["é", "", "a", "é"]), 0, 4)!, ...b.readPage(plainPage(many), 0, many.length)!];
    expect(ids.slice(0, 4)).toEqual([0, 1, 2, 0]);
    expect(ids.map((id) => b.strings[id])).toEqual(["é", "", "a", "é", ...many]);
    expect(b.strings.length).toBe(3 + 7000);
  });

  it("refuses a page holding a value whose decoding loses bytes (leading BOM, invalid UTF-8)", () => {
    const b = new ByteStrings();
    expect(b.readPage(plainPage(["a", "\uFEFFa"]), 0, 2)).toBeUndefined(); // decodes to "a" too
    const invalid = plainPage(["ab"]);
    invalid[4] = 0xff;
    expect(b.readPage(invalid, 0, 1)).toBeUndefined();
    expect(Array.from(b.readPage(plainPage(["b", "a"]), 0, 2)!)).toEqual([1, 0]);
    expect(b.strings).toEqual(["a", "b"]);
  });

  it("reads from an offset and rejects a length past the end of the page", () => {
    const page = plainPage(["x", "yy"]);
    expect(Array.from(new ByteStrings().readPage(page, 5, 1)!)).toEqual([0]);
    expect(() => new ByteStrings().readPage(page.subarray(0, 8), 0, 2)).toThrow(/past the end of the page/);
  });
});
