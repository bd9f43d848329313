import { describe, expect, it } from "vitest";
import { detectFormat } from "../../src/ingest/detect";
import { utf8 } from "./helpers";

describe("detectFormat", () => {
  it("recognises Parquet by its magic, whatever the name", () => {
    expect(detectFormat("data.bin", "application/octet-stream", utf8("PAR1\x15\x04"))).toBe("parquet");
  });

  it("accepts CSV by extension or by content type", () => {
    expect(detectFormat("x.csv", "application/octet-stream", utf8("a,b\n"))).toBe("csv");
    expect(detectFormat("x.TSV", null, utf8("a\tb\n"))).toBe("csv");
    expect(detectFormat("upload", "text/csv; charset=utf-8", utf8("a,b\n"))).toBe("csv");
  });

  it("decides by name and type when no bytes are available yet", () => {
    expect(detectFormat("x.parquet", null, null)).toBe("parquet");
    expect(detectFormat("x.csv", null, null)).toBe("csv");
    expect(detectFormat("x.xlsx", null, null)).toBeNull();
  });

  it("rejects images, archives and spreadsheets even when named .csv", () => {
    expect(detectFormat("x.csv", "text/csv", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 13, 10]))).toBeNull();
    expect(detectFormat("x.zip", "application/zip", new Uint8Array([0x50, 0x4b, 3, 4]))).toBeNull();
    expect(
      detectFormat("book.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", new Uint8Array([0x50, 0x4b, 3, 4])),
    ).toBeNull();
    expect(detectFormat("x.csv", "text/csv", new Uint8Array([97, 0, 98, 0]))).toBeNull();
  });

  it("rejects unknown extensions without a text content type", () => {
    expect(detectFormat("notes.json", "application/json", utf8("{}"))).toBeNull();
  });
});
