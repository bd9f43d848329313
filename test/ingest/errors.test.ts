import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readCsv } from "../../src/ingest/csv";
import { readParquet } from "../../src/ingest/parquet";
import { BENCH, csv, expectIngestError, streamOf, utf8 } from "./helpers";

describe("bad input fails with a clear IngestError", () => {
  it("empty file", async () => {
    await expectIngestError(csv(""), "empty_file", /empty/);
    await expectIngestError(csv("\n\n  \n"), "empty_file", /empty/);
    await expectIngestError(readParquet(new ArrayBuffer(0)), "empty_file", /empty/);
  });

  it("header only", async () => {
    await expectIngestError(csv("a,b,c\n"), "no_data_rows", /header row \(3 columns\) but no data rows/);
  });

  it("binary garbage", async () => {
    const garbage = new Uint8Array(2000).map((_, i) => (i * 37) % 256);
    await expectIngestError(readCsv(garbage), "invalid_utf8", /not valid UTF-8/);
    await expectIngestError(readCsv(new Uint8Array([97, 44, 98, 0, 1, 2, 10, 49, 44, 50])), "unsupported_format", /binary data/);
    await expectIngestError(readParquet(garbage), "corrupt_parquet", /not a Parquet file/);
  });

  it("truncated parquet", async () => {
    const whole = new Uint8Array(readFileSync(`${BENCH}/cps1988.parquet`));
    await expectIngestError(readParquet(whole.slice(0, 50000)), "corrupt_parquet", /incomplete.*truncated/);
  });

  it("corrupt parquet footer", async () => {
    const bytes = new Uint8Array(readFileSync(`${BENCH}/cps1988.parquet`));
    bytes.fill(0xff, bytes.length - 400, bytes.length - 8);
    await expectIngestError(readParquet(bytes), "corrupt_parquet", /could not be read/);
  });

  it("parquet with a codec the Worker cannot decompress", async () => {
    const bytes = new Uint8Array(readFileSync(`${BENCH}/cps1988.parquet`));
    await expectIngestError(readParquet(bytes), "unsupported_parquet", /compressed with ZSTD/);
  });

  it("ragged rows name the line", async () => {
    await expectIngestError(csv("a,b\n1,2\n3,4,5\n"), "ragged_row", /^Line 3 has 3 fields but the header has 2 columns/);
    await expectIngestError(csv('a,b\n"x\ny",2\n3\n'), "ragged_row", /^Line 4 has 1 field but/);
  });

  it("unclosed quote", async () => {
    await expectIngestError(csv('a,b\n1,"oops\n2,3\n'), "bad_quotes", /never closed/);
  });

  it("duplicate column names are named", async () => {
    await expectIngestError(csv("a,b,a\n1,2,3\n"), "duplicate_columns", /"a" \(columns 1 and 3\)/);
  });

  it("empty column names give the position", async () => {
    await expectIngestError(csv("a,,c\n1,2,3\n"), "empty_column_name", /Column 2 has an empty name/);
  });

  it("invalid UTF-8 names the byte and line, even when streamed", async () => {
    const bytes = new Uint8Array([...utf8("a,b\nx,1\n"), 0xc3, 0x28, ...utf8(",2\n")]);
    await expectIngestError(readCsv(bytes), "invalid_utf8", /byte 8 \(line 3\)/);
    await expectIngestError(readCsv(streamOf(bytes, 3)), "invalid_utf8", /byte 8 \(line 3\)/);
    await expectIngestError(readCsv(new Uint8Array([...utf8("a,b\nx,"), 0xe2, 0x82])), "invalid_utf8", /ends in the middle/);
  });

  it("a single column", async () => {
    await expectIngestError(csv("only\n1\n2\n"), "too_few_columns", /only one column \("only"\)/);
  });

  it("more than 2000 columns", async () => {
    const header = Array.from({ length: 2001 }, (_, i) => `c${i}`).join(",");
    await expectIngestError(csv(`${header}\n${header}\n`), "too_many_columns", /2001 columns; at most 2000/);
  });

  it("an id column with duplicates or gaps", async () => {
    await expectIngestError(csv("id,a\n1,x\n1,y\n"), "bad_id_column", /not unique: the value "1" repeats in data row 2/);
    await expectIngestError(csv("id,a\n1,x\n,y\n"), "bad_id_column", /1 missing value \(first in data row 2\)/);
  });

  it("stops reading and cancels the stream at the first bad row", async () => {
    let canceled = false;
    const source = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(utf8(`a,b\n1,2,3\n${"x,y\n".repeat(70000)}`));
      },
      cancel() {
        canceled = true;
      },
    });
    await expectIngestError(readCsv(source), "ragged_row", /Line 2/);
    expect(canceled).toBe(true);
  });
});
