import { type ColumnSource, parquetWriteBuffer } from "hyparquet-writer";
import { describe, expect, it } from "vitest";
import { decodeFrame, encodeFrame } from "../../src/ingest/codec";
import { readCsv } from "../../src/ingest/csv";
import { readParquetStream } from "../../src/ingest/parquet-stream";
import { SegmentedFrameWriter } from "../../src/ingest/segmented-frame";
import { StreamedFrame } from "../../src/ingest/streamed-frame";
import type { IngestResult, ReadOptions } from "../../src/ingest/types";
import { seededRandom } from "../seeded-random";
import { expectSameFrame, streamOf, utf8 } from "./helpers";

/** Reads with a StreamedFrame receiving the reader's rows; the frame it wrote, decoded, and how
 * many segments went out before the read ended. */
async function streamedRead(read: (opts: ReadOptions) => Promise<IngestResult>, segmentRows: number, batchBytes?: number) {
  const pieces: Uint8Array[] = [];
  const writer = new SegmentedFrameWriter((b) => pieces.push(b.slice()));
  let appends = 0;
  let reading = true;
  let duringRead = 0;
  let longest = 0;
  const streamed = new StreamedFrame(
    {
      append: (key, stores, data, from) => {
        appends++;
        if (reading) duringRead++;
        longest = Math.max(longest, data.length);
        writer.append(key, stores, data, from);
      },
      finish: (rows, plans) => writer.finish(rows, plans),
    },
    segmentRows,
    batchBytes,
  );
  const result = await read({ onRows: (r, final) => streamed.checkpoint(r, final) });
  reading = false;
  const byteLength = await streamed.finish(result.frame);
  const bytes = new Uint8Array(byteLength);
  let at = 0;
  for (const p of pieces) at += (bytes.set(p, at), p.length);
  expect(at).toBe(byteLength);
  return { frame: result.frame, decoded: decodeFrame(bytes), appends, duringRead, longest, bytes };
}

function csvText(rows: number, seed: number): string {
  const r = seededRandom(seed);
  const lines = ["x,n,cat,flag,spelled,day,turns,late,code"];
  for (let i = 0; i < rows; i++) {
    const x = r() < 0.05 ? "" : (r() * 100).toFixed(3);
    const cat = ["red", "green", "blue", ""][Math.floor(r() * 4)];
    const flag = r() < 0.5 ? "yes" : r() < 0.1 ? "" : "no";
    const spelled = ["yes", "Yes", "no", "NO"][Math.floor(r() * 4)];
    const day = `2024-0${1 + Math.floor(r() * 9)}-1${Math.floor(r() * 9)}`;
    // numbers, until a word two thirds in: the column falls back to text mid-file
    const turns = i === Math.floor((rows * 2) / 3) ? "many" : String(Math.floor(r() * 50));
    const late = i < rows - 100 ? "" : String(i);
    lines.push([x, i % 7, cat, flag, spelled, day, turns, late, `00${i % 30}`].join(","));
  }
  return `${lines.join("\n")}\n`;
}

describe("a frame streamed while a CSV is read", () => {
  it("decodes to the frame the reader built, with most segments sent during the read", async () => {
    const bytes = utf8(csvText(30000, 5));
    const { frame, decoded, duringRead } = await streamedRead((opts) => readCsv(streamOf(bytes, 65536), opts), 2048);
    expect(frame.columns.map((c) => c.kind)).toEqual([
      "id",
      "numeric",
      "numeric",
      "categorical",
      "boolean",
      "boolean",
      "datetime",
      "categorical",
      "numeric",
      "categorical",
    ]);
    expectSameFrame(decoded, frame, "streamed CSV");
    expect(duringRead).toBeGreaterThan(3 * 9);
  });

  it("is the same frame whatever the segment size, and the same as the version-3 encoding", async () => {
    const bytes = utf8(csvText(12000, 9));
    const small = await streamedRead((opts) => readCsv(streamOf(bytes, 4096), opts), 1000);
    const one = await streamedRead((opts) => readCsv(bytes, opts), 2 ** 20);
    expectSameFrame(small.decoded, one.decoded, "segments of 1000 rows vs one segment");
    expectSameFrame(small.decoded, decodeFrame(encodeFrame(small.frame)), "version 4 vs version 3");
  });

  it("sends a wide table in batches bounded in bytes, a column that starts over in pieces of a batch", async () => {
    const bytes = utf8(csvText(30000, 6));
    // 10 columns of 4–8 bytes a row: 2 KiB make a batch of the 1024 rows at least
    const { frame, decoded, longest, duringRead } = await streamedRead((opts) => readCsv(streamOf(bytes, 65536), opts), 2 ** 20, 2048);
    expectSameFrame(decoded, frame, "batches of 1024 rows");
    expect(longest).toBe(1024);
    expect(duringRead).toBeGreaterThan(20 * 9);
  });

  it("writes a frame read without reports (several files, a Parquet file in memory) whole at the end", async () => {
    const bytes = utf8(csvText(500, 2));
    const { frame, decoded, appends, duringRead } = await streamedRead((opts) => readCsv(bytes, { ...opts, onRows: undefined }), 100);
    expectSameFrame(decoded, frame, "written at the end");
    expect(duringRead).toBe(0);
    expect(appends).toBeGreaterThan(frame.columns.length);
  });
});

describe("a frame streamed while a Parquet file is read", () => {
  function parquetFile(n: number): Uint8Array {
    const r = seededRandom(3);
    const of = <T>(f: (i: number) => T, nulls = 0.1) => Array.from({ length: n }, (_, i) => (r() < nulls ? null : f(i)));
    const columns: ColumnSource[] = [
      { name: "x", data: of(() => r() * 100), type: "DOUBLE" },
      { name: "flag", data: of(() => r() < 0.3), type: "BOOLEAN" },
      { name: "cat", data: of(() => ["a", " b ", "NA", "", "c"][Math.floor(r() * 5)]), type: "STRING", encoding: "RLE_DICTIONARY" },
      { name: "user", data: of(() => `u${Math.floor(r() * 3000)}`), type: "STRING", encoding: "PLAIN" },
      { name: "yesno", data: of(() => (r() < 0.5 ? "yes" : "no")), type: "STRING" },
      { name: "late", data: of((i) => (i < n - 300 ? null : i), 0), type: "INT32" },
      // a value beyond 2^53 late in the file: the column turns to text
      { name: "big", data: of((i) => BigInt(i === n - 10 ? 2 ** 60 : i), 0), type: "INT64" },
    ];
    return new Uint8Array(parquetWriteBuffer({ columnData: columns, rowGroupSize: 700, pageSize: 900 }));
  }
  const ranged = (bytes: Uint8Array) => ({
    bytes: bytes.length,
    open: async () => streamOf(bytes, 8192),
    openRange: async (start: number, end: number) => bytes.slice(start, end),
  });

  it("decodes to the frame the reader built (text codes settled in row order as row groups finish)", async () => {
    const bytes = parquetFile(9000);
    const { frame, decoded, duringRead } = await streamedRead((opts) => readParquetStream(ranged(bytes), { ...opts, footerBytes: 1024 }), 1500);
    // read as numbers, then as text from the value past 2^53, then inferred numeric from its strings
    const big = frame.columns.find((c) => c.name === "big");
    expect(big?.storage === "numeric" && big.values[9000 - 10]).toBe(2 ** 60);
    expect(frame.columns.find((c) => c.name === "yesno")?.kind).toBe("boolean");
    expectSameFrame(decoded, frame, "streamed Parquet");
    expect(duringRead).toBeGreaterThan(20);
  });
});

describe("the segmented frame's decoder", () => {
  const sample = async () => (await streamedRead((opts) => readCsv(utf8(csvText(300, 4)), opts), 100)).bytes;

  it("refuses a frame cut short, whose trailer is gone", async () => {
    const bytes = await sample();
    expect(() => decodeFrame(bytes.subarray(0, bytes.length - 3))).toThrow(/no trailer/);
  });

  it("refuses a footer whose segment lies outside the data", async () => {
    const bytes = await sample();
    const edited = withFooter(bytes, (f) => (f.columns[1].segments[0].offset = bytes.length));
    expect(() => decodeFrame(edited)).toThrow(/lies outside the data/);
  });

  it("refuses segments that do not cover the rows", async () => {
    const bytes = await sample();
    expect(() => decodeFrame(withFooter(bytes, (f) => f.columns[1].segments.pop()))).toThrow(/segments for \d+ of its 300 rows/);
  });

  it("refuses a footer that is not JSON, or whose column entry is not an object, with a decodeFrame error", async () => {
    const bytes = await sample();
    const notJson = bytes.slice();
    notJson[notJson.length - 9] = 0x7b; // the footer's closing brace made an opening one
    expect(() => decodeFrame(notJson)).toThrow(/decodeFrame: malformed footer \(not JSON\)/);
    expect(() => decodeFrame(withFooter(bytes, (f) => (f.columns[1] = null)))).toThrow(/decodeFrame: malformed footer/);
    expect(() => decodeFrame(withFooter(bytes, (f) => (f.columns[1].segments[0] = null)))).toThrow(/decodeFrame: column "x" has no segments/);
  });

  it("refuses a code past a column's table", async () => {
    const bytes = await sample();
    const edited = withFooter(bytes, (f) => {
      const flag = f.columns.find((c: { name: string }) => c.name === "flag");
      flag.table.count = 1;
    });
    expect(() => decodeFrame(edited)).toThrow(/past its table of 1/);
  });
});

/** The frame with its footer edited (re-appended after the data, as a writer would). */
function withFooter(bytes: Uint8Array, edit: (footer: any) => void): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = view.getUint32(bytes.length - 8, true);
  const start = bytes.length - 8 - length;
  const footer = JSON.parse(new TextDecoder().decode(bytes.subarray(start, start + length)));
  edit(footer);
  const json = utf8(JSON.stringify(footer));
  const out = new Uint8Array(start + json.length + 8);
  out.set(bytes.subarray(0, start));
  out.set(json, start);
  const tail = new DataView(out.buffer);
  tail.setUint32(out.length - 8, json.length, true);
  out.set(bytes.subarray(bytes.length - 4), out.length - 4);
  return out;
}
