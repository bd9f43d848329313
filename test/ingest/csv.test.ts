import { describe, expect, it } from "vitest";
import { readCsv } from "../../src/ingest/csv";
import { csv, kindOf, utf8, valuesOf } from "./helpers";

describe("readCsv", () => {
  it("treats empty, NA, N/A, null, NULL, NaN and None as missing", async () => {
    const { frame } = await csv("x,y\n1,a\n,b\nNA,c\nN/A,d\nnull,e\nNULL,f\nNaN,g\nNone,h\n");
    expect(kindOf(frame, "x")).toBe("numeric");
    expect(valuesOf(frame, "x")).toEqual([1, null, null, null, null, null, null, null]);
  });

  it("keeps missing markers out of a categorical dictionary", async () => {
    const { frame } = await csv("c,n\nred,1\nNA,2\nblue,3\n,4\n");
    expect(valuesOf(frame, "c")).toEqual(["red", null, "blue", null]);
  });

  it("trims whitespace around values", async () => {
    const { frame } = await csv("a, b\n 1 , x \n2,x\n");
    expect(frame.columns.map((c) => c.name)).toEqual(["id", "a", "b"]);
    expect(valuesOf(frame, "a")).toEqual([1, 2]);
    expect(valuesOf(frame, "b")).toEqual(["x", "x"]);
  });

  it("generates an id column 0..n-1 as the first column", async () => {
    const r = await csv("a,b\n5,x\n6,y\n7,z\n");
    expect(r.idGenerated).toBe(true);
    expect(r.frame.columns[0]).toMatchObject({ name: "id", kind: "id", storage: "numeric" });
    expect(valuesOf(r.frame, "id")).toEqual([0, 1, 2]);
  });

  it("keeps the file's id column (moved first), numeric when integers", async () => {
    const r = await csv("a,id\nx,10\ny,30\n");
    expect(r.idGenerated).toBe(false);
    expect(r.frame.columns.map((c) => c.name)).toEqual(["id", "a"]);
    expect(r.frame.columns[0]).toMatchObject({ kind: "id", storage: "numeric" });
    expect(valuesOf(r.frame, "id")).toEqual([10, 30]);
  });

  it("keeps a string id column as strings", async () => {
    const { frame } = await csv("id,a\nab,1\ncd,2\n");
    expect(frame.columns[0]).toMatchObject({ name: "id", kind: "id", storage: "dictionary" });
    expect(valuesOf(frame, "id")).toEqual(["ab", "cd"]);
  });

  it("strips a UTF-8 byte order mark", async () => {
    const { frame } = await readCsv(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("name,v\nx,1\n")]));
    expect(frame.columns.map((c) => c.name)).toEqual(["id", "name", "v"]);
  });

  it("reads CRLF line endings without stray carriage returns", async () => {
    const { frame } = await csv('a,b\r\nx,1\r\n"y",2\r\n');
    expect(valuesOf(frame, "a")).toEqual(["x", "y"]);
    expect(valuesOf(frame, "b")).toEqual([1, 2]);
  });

  it("reads quoted fields with delimiters, doubled quotes and newlines", async () => {
    const { frame } = await csv('a,b\n"x, y","say ""hi""\nthere"\nz,w\n');
    expect(frame.rowCount).toBe(2);
    expect(valuesOf(frame, "a")).toEqual(["x, y", "z"]);
    expect(valuesOf(frame, "b")).toEqual(['say "hi"\nthere', "w"]);
  });

  it("detects semicolon, tab and pipe delimiters", async () => {
    for (const d of [";", "\t", "|"]) {
      const r = await csv(`a${d}b${d}c\n1${d}2,5${d}x\n3${d}4${d}y\n`);
      expect(r.delimiter).toBe(d);
      expect(r.frame.columns.map((c) => c.name)).toEqual(["id", "a", "b", "c"]);
    }
  });

  it("reads a file without a final newline and skips blank lines", async () => {
    const { frame } = await csv("a,b\n1,2\n\n3,4");
    expect(valuesOf(frame, "a")).toEqual([1, 3]);
  });

  it("accepts a one-shot buffer larger than one parse piece", async () => {
    const rows = Array.from({ length: 30000 }, (_, i) => `${i},cat${i % 7},"q ${i}"`).join("\n");
    const { frame } = await csv(`n,c,q\n${rows}\n`);
    expect(frame.rowCount).toBe(30000);
    expect(valuesOf(frame, "n")[29999]).toBe(29999);
  });
});
