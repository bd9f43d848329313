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

  it("tells apart values of every length, short (packed in words) and long (compared by bytes)", () => {
    // Each length 0..40, a value and the same with its last byte changed or a NUL appended (what
    // zero-padding packed words could confuse), long ones past the check word's exact lengths (31).
    const values: string[] = [];
    for (let n = 0; n <= 40; n++) {
      const v = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEF".slice(0, n);
      values.push(v, `${v}\0`, n > 0 ? `${v.slice(0, -1)}!` : "!", `é${v}`);
    }
    const distinct = [...new Set(values)];
    const b = new ByteStrings();
    const first = b.readPage(plainPage(values), 0, values.length)!;
    expect(Array.from(first, (id) => b.strings[id])).toEqual(values);
    expect(b.strings).toEqual(distinct);
    // again, reversed, across table growths: found, not added
    const again = [...values].reverse();
    const many = Array.from({ length: 5000 }, (_, i) => again[i % again.length]);
    const ids = b.readPage(plainPage(many), 0, many.length)!;
    expect(Array.from(ids, (id) => b.strings[id])).toEqual(many);
    expect(b.strings).toEqual(distinct);
  });

  it("reads a value ending less than 16 bytes before the page's end like the same value elsewhere", () => {
    // The last values of a page are packed byte by byte (no whole-word reads past the page).
    const tail = ["x", "abcdefghijklmnop", "abcdefghijklmnopq", "xyz", "abcdefghijklmno"];
    const b = new ByteStrings();
    const ids = b.readPage(plainPage([...tail, "pad-pad-pad-pad-pad-pad", ...tail]), 0, 11)!;
    expect(Array.from(ids.subarray(6))).toEqual(Array.from(ids.subarray(0, 5)));
    // a page that is a sub-view of a larger buffer, ending right after its last value
    const [abc] = b.readPage(plainPage(["abc", "pad-pad-pad-pad-pad"]), 0, 2)!;
    const page = plainPage(["abc", "abc"]);
    const inBigger = new Uint8Array(page.length + 32).fill(0x61);
    inBigger.set(page, 16);
    expect(Array.from(b.readPage(inBigger.subarray(16, 16 + page.length), 0, 2)!)).toEqual([abc, abc]);
    expect(b.strings[abc]).toBe("abc");
  });
});
