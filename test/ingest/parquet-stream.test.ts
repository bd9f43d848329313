import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { parquetMetadata } from "hyparquet";
import { type ColumnSource, parquetWriteBuffer } from "hyparquet-writer";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { IngestError } from "../../src/ingest/errors";
import { nodeCompressors } from "../../src/ingest/node-compressors";
import { readParquet } from "../../src/ingest/parquet";
import { ParquetColumn } from "../../src/ingest/parquet-column";
import { groupSpans } from "../../src/ingest/parquet-groups";
import { type RangedFile, type ReadParquetStreamOptions, readParquetStream } from "../../src/ingest/parquet-stream";
import { readSources, type SourceFile } from "../../src/ingest/read-sources";
import { seededRandom } from "../seeded-random";
import { BENCH, expectSameFrame } from "./helpers";

const bench = (name: string) => new Uint8Array(readFileSync(`${BENCH}/${name}`));

/** `bytes` as a ranged file whose stream delivers pieces of `size` bytes; `pulled` counts what the stream gave. */
function ranged(bytes: Uint8Array, size: number, counter = { pulled: 0, ranges: 0 }): RangedFile {
  return {
    bytes: bytes.length,
    open: async () => {
      let at = 0;
      return new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            if (at >= bytes.length) return controller.close();
            const piece = bytes.slice(at, at + size);
            at += piece.length;
            counter.pulled = at;
            controller.enqueue(piece);
          },
        },
        { highWaterMark: 0 },
      );
    },
    openRange: async (start, end) => {
      counter.ranges++;
      return bytes.slice(start, end);
    },
  };
}

/** A hyparquet-writer file (v2 pages): many row groups and pages, nulls, dictionary and PLAIN text. */
function writerFile(): Uint8Array {
  const r = seededRandom(11);
  const n = 12000;
  const of = <T>(f: (i: number) => T, nulls = 0.1) => Array.from({ length: n }, (_, i) => (r() < nulls ? null : f(i)));
  const columns: ColumnSource[] = [
    { name: "x", data: of(() => r() * 100), type: "DOUBLE" },
    { name: "small", data: of(() => Math.floor(r() * 7)), type: "INT32", encoding: "RLE_DICTIONARY" },
    { name: "delta", data: of(() => BigInt(Math.floor(r() * 1e6))), type: "INT64", encoding: "DELTA_BINARY_PACKED" },
    { name: "flag", data: of(() => r() < 0.3), type: "BOOLEAN" },
    { name: "cat", data: of(() => ["a", " b ", "NA", "", "c"][Math.floor(r() * 5)]), type: "STRING", encoding: "RLE_DICTIONARY" },
    { name: "user", data: of(() => `u${Math.floor(r() * 3000)}`), type: "STRING", encoding: "PLAIN" },
    { name: "late", data: of((i) => (i < 11000 ? null : i), 0), type: "INT32" },
  ];
  return new Uint8Array(parquetWriteBuffer({ columnData: columns, rowGroupSize: 700, pageSize: 900 }));
}

/** A DuckDB file (v1 pages, Snappy): dictionary and PLAIN strings, nulls, dates, booleans, 6 row groups. */
async function duckdbFile(
  select = `SELECT i::DOUBLE / 7 AS x,
        CASE WHEN i % 11 = 0 THEN NULL ELSE i % 97 END AS n,
        CASE WHEN i % 13 = 0 THEN NULL ELSE 'plan_' || (i % 5) END AS plan,
        'user_' || ((i * 7919) % 40000) AS "user",
        i % 3 = 0 AS flag,
        DATE '2020-01-01' + (i % 400)::INTEGER AS day
      FROM range(60000) t(i)`,
): Promise<Uint8Array> {
  const dir = mkdtempSync(join(tmpdir(), "parquet-stream-"));
  try {
    const path = join(dir, "t.parquet");
    const db = await DuckDBInstance.create(":memory:");
    const con = await db.connect();
    await con.run(`COPY (${select}) TO '${path}' (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 10000)`);
    con.closeSync();
    db.closeSync();
    return new Uint8Array(readFileSync(path));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const files: Record<string, Uint8Array> = {};
beforeAll(async () => {
  files.writer = writerFile();
  files.duckdb = await duckdbFile();
  files.fertility = bench("fertility.parquet");
  files.diamonds = bench("diamonds.parquet");
});

afterEach(() => vi.restoreAllMocks());

const opts = (more: ReadParquetStreamOptions = {}): ReadParquetStreamOptions => ({ compressors: nodeCompressors, ...more });

describe("readParquetStream: the frame of readParquet on the whole file", () => {
  it("is streamed, not read whole: the files have several row groups in byte order and are longer than the footer's read", () => {
    for (const [name, bytes] of Object.entries(files)) {
      const spans = groupSpans(parquetMetadata(bytes), bytes.length);
      expect(spans?.length, name).toBeGreaterThanOrEqual(name === "diamonds" ? 1 : 3);
      expect(bytes.length, name).toBeGreaterThan(4096);
    }
  });

  for (const [name, sizes] of [
    ["writer", [1, 7, 4099, 65536]],
    ["duckdb", [7, 4099, 65536]],
    ["fertility", [65536]],
    ["diamonds", [4099]],
  ] as const) {
    it(`${name} file, streamed in pieces of ${sizes.join(", ")} bytes`, async () => {
      const bytes = files[name];
      const want = await readParquet(bytes, opts());
      for (const size of sizes) {
        // footers of every length: the default guess (64 KiB, more than the writer file's footer),
        // and one short enough that the footer is read a second time
        for (const footerBytes of [undefined, 64]) {
          const counter = { pulled: 0, ranges: 0 };
          const got = await readParquetStream(ranged(bytes, size, counter), opts({ footerBytes, readAheadBytes: 4096 }));
          expectSameFrame(got.frame, want.frame, `${name} in pieces of ${size}, footer guess ${footerBytes}`);
          expect(got.bytes).toBe(want.bytes);
          expect(counter.pulled, "the stream is read to its end").toBe(bytes.length);
          if (bytes.length > (footerBytes ?? 65536)) expect(counter.ranges, "footer read by range").toBeGreaterThanOrEqual(2);
        }
      }
    });
  }

  it("reads a file with nested columns (lists, structs) whole, as readParquet does: the same frame", async () => {
    const bytes = await duckdbFile(`SELECT i AS n, [i, i + 1] AS pair, {'a': i % 3, 'b': 'x' || (i % 4)} AS s FROM range(30000) t(i)`);
    const held = { max: 0 };
    const got = await readParquetStream(ranged(bytes, 4099), opts({ footerBytes: 1024, held }));
    expectSameFrame(got.frame, (await readParquet(bytes, opts())).frame, "nested");
    expect(held.max, "not streamed by row group").toBe(0);
    expect(got.frame.columns.map((c) => c.name)).toEqual(["id", "n", "pair", "s"]);
  });

  it("reads a raw-text (inference) frame the same", async () => {
    const bytes = files.duckdb;
    const want = await readParquet(bytes, opts({ rawText: true }));
    const got = await readParquetStream(ranged(bytes, 4099), opts({ rawText: true, footerBytes: 1024 }));
    expectSameFrame(got.frame, want.frame, "raw text");
  });
});

describe("readParquetStream: memory bounded by a few row groups, not the file", () => {
  it("decodes each row group before the stream has gone more than the read-ahead past it, holding no more than that", async () => {
    const bytes = files.duckdb;
    const spans = groupSpans(parquetMetadata(bytes), bytes.length)!;
    const largest = Math.max(...spans.map((s) => s.end - s.start));
    const groupRows = parquetMetadata(bytes).row_groups.map((g) => Number(g.num_rows));
    const want = (await readParquet(bytes, opts())).frame;
    const counter = { pulled: 0, ranges: 0 };
    const readAheadBytes = 1;
    const piece = 4099;
    // Each page written: which row group it is in (by its first row), and how far the stream had got.
    const ahead: number[] = [];
    const write = ParquetColumn.prototype.write;
    vi.spyOn(ParquetColumn.prototype, "write").mockImplementation(function (this: ParquetColumn, ...args: Parameters<typeof write>) {
      let g = 0;
      for (let start = 0; start + groupRows[g] <= args[0]; g++) start += groupRows[g];
      ahead.push(counter.pulled - spans[g].end);
      return write.apply(this, args);
    });
    const held = { max: 0 };
    const got = await readParquetStream(ranged(bytes, piece, counter), opts({ footerBytes: 1024, readAheadBytes, held }));
    vi.restoreAllMocks();
    expectSameFrame(got.frame, want, "duckdb");
    // a complete group waiting, one filling, and the stream's piece in hand
    const bound = 2 * largest + piece;
    expect(Math.max(...ahead)).toBeLessThanOrEqual(bound);
    expect(bound).toBeLessThan(bytes.length / 2); // the check could fail: the file is much more than the bound
    // held: one decoding, one waiting, one filling
    expect(held.max).toBeGreaterThanOrEqual(largest);
    expect(held.max).toBeLessThanOrEqual(3 * largest);
  });
});

describe("readParquetStream: the same errors as readParquet on the whole file", () => {
  async function sameError(bytes: Uint8Array, what: string, footerBytes?: number): Promise<IngestError> {
    const want = await readParquet(bytes, opts()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(want, what).toBeInstanceOf(IngestError);
    const got = await readParquetStream(ranged(bytes, 4099), opts({ footerBytes })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(got, what).toBeInstanceOf(IngestError);
    const [w, g] = [want as IngestError, got as IngestError];
    expect([g.code, g.message], what).toEqual([w.code, w.message]);
    return g;
  }

  it("a truncated file, a file that is not Parquet, a footer whose length is wrong, a garbled footer", async () => {
    const bytes = files.duckdb;
    const footerLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(bytes.length - 8, true);
    expect((await sameError(bytes.slice(0, bytes.length - 1000), "truncated")).message).toMatch(/incomplete/);
    const notParquet = bytes.slice();
    notParquet[0] = 0x50 + 1;
    expect((await sameError(notParquet, "not Parquet")).message).toMatch(/not a Parquet file/);
    const tooLong = bytes.slice();
    new DataView(tooLong.buffer).setUint32(tooLong.length - 8, bytes.length, true);
    expect((await sameError(tooLong, "footer length past the start")).message).toMatch(/metadata length/);
    const garbled = bytes.slice();
    garbled.fill(0xff, bytes.length - 8 - footerLength, bytes.length - 8 - footerLength + 40);
    await sameError(garbled, "garbled footer");
    await sameError(garbled, "garbled footer, read twice", 64);
  });

  it("a row group whose bytes are garbled: the same column, row group and bytes named", async () => {
    const bytes = files.duckdb;
    const meta = parquetMetadata(bytes).row_groups[3].columns[3].meta_data!; // "user", PLAIN strings
    const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
    const garbled = bytes.slice();
    garbled.fill(0xff, start, start + 64); // the page header
    const e = await sameError(garbled, "garbled row group");
    expect(e.message).toMatch(/column 'user', row group 4 of 6, bytes \d+–\d+/);
  });

  it("a row group cut by a transfer that ends early: a transfer fault from readSources, as for the whole file", async () => {
    const bytes = files.duckdb;
    const cut = bytes.slice(0, Math.floor(bytes.length / 2));
    const source = (openRange: boolean): SourceFile => {
      const r = ranged(cut, 4099);
      // the ranges read the file as uploaded; the stream ends halfway
      return { filename: "t.parquet", bytes: bytes.length, open: r.open, openRange: openRange ? async (s, e) => bytes.slice(s, e) : undefined };
    };
    const read = (f: SourceFile) =>
      readSources([f], { format: "parquet", maxCells: 1e9, compressors: nodeCompressors }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    const [whole, streamed] = [await read(source(false)), await read(source(true))];
    expect(streamed).not.toBeInstanceOf(IngestError);
    expect(streamed?.message).toBe(whole?.message);
    expect(streamed?.message).toMatch(/^'t.parquet' was read as \d+ bytes, not the \d+ uploaded: its transfer went wrong.$/);
  });
});

describe("readSources with a ranged source", () => {
  it("streams a Parquet file: the same frame, the file's bytes counted for progress", async () => {
    const bytes = files.duckdb;
    const r = ranged(bytes, 65536);
    const counter = { reads: 0 };
    const f: SourceFile = {
      filename: "t.parquet",
      bytes: bytes.length,
      open: r.open,
      openRange: async (s, e) => {
        counter.reads++;
        return bytes.slice(s, e);
      },
    };
    const progress: number[] = [];
    const got = await readSources([f], {
      format: "parquet",
      maxCells: 1e9,
      compressors: nodeCompressors,
      onProgress: async (read) => {
        progress.push(read);
      },
    });
    expect(counter.reads).toBe(2); // head and tail
    expectSameFrame(got.frame, (await readParquet(bytes, opts())).frame, "readSources");
    expect(progress.at(-1)).toBe(bytes.length);
  });
});
