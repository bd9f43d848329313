import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { type ColumnData, parquetMetadata, parquetRead, parquetSchema } from "hyparquet";
import { type ColumnSource, parquetWriteBuffer } from "hyparquet-writer";
import { describe, expect, it } from "vitest";
import { withRowIds } from "../../src/ingest/ids";
import { readParquet } from "../../src/ingest/parquet";
import { ParquetColumn } from "../../src/ingest/parquet-column";
import type { Frame } from "../../src/ml/frame";
import { seededRandom } from "../seeded-random";

/**
 * The reader before page-by-page decoding, as the reference: hyparquet's parquetRead, each chunk
 * as one JS value per row, written cell by cell (ParquetColumn.write without a page layout).
 */
async function readReference(bytes: Uint8Array, rawText = false): Promise<Frame> {
  const metadata = parquetMetadata(bytes);
  const rows = Number(metadata.num_rows);
  const names = parquetSchema(metadata).children.map((c) => c.element.name);
  const columns = new Map(names.map((n) => [n, new ParquetColumn(n, rows, rawText && n !== "id")]));
  const onChunk = ({ columnName, columnData, rowStart }: ColumnData) => columns.get(columnName)?.write(rowStart, columnData);
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  await parquetRead({ file, metadata, onChunk });
  return {
    rowCount: rows,
    columns: withRowIds(
      [...columns.values()].map((c) => c.finish()),
      rows,
    ).columns,
  };
}

async function expectAsReference(bytes: Uint8Array): Promise<Frame> {
  const { frame } = await readParquet(bytes);
  expect(frame).toEqual(await readReference(bytes));
  expect((await readParquet(bytes, { rawText: true })).frame).toEqual(await readReference(bytes, true));
  return frame;
}

describe("readParquet page by page: the same frames as hyparquet's values written cell by cell", () => {
  it("on hyparquet-writer files (v2 pages): nulls, every encoding, many row groups and pages", async () => {
    const r = seededRandom(7);
    const n = 3000;
    const of = <T>(f: (i: number) => T, nulls = 0.1) => Array.from({ length: n }, (_, i) => (r() < nulls ? null : f(i)));
    const columns: ColumnSource[] = [
      { name: "x", data: of(() => r() * 100), type: "DOUBLE" },
      { name: "split", data: of(() => r(), 0), type: "DOUBLE", nullable: false, encoding: "BYTE_STREAM_SPLIT" },
      { name: "small", data: of(() => Math.floor(r() * 7)), type: "INT32", encoding: "RLE_DICTIONARY" },
      { name: "delta", data: of(() => BigInt(Math.floor(r() * 1e6))), type: "INT64", encoding: "DELTA_BINARY_PACKED" },
      // a value beyond 2^53 in the last row group: the column turns to text
      { name: "big", data: of((i) => (i === n - 5 ? 2n ** 60n : BigInt(i % 50))), type: "INT64", encoding: "RLE_DICTIONARY" },
      { name: "flag", data: of(() => r() < 0.3), type: "BOOLEAN" },
      { name: "when", data: of(() => new Date(Date.UTC(2020, 0, 1) + Math.floor(r() * 1000) * 86400000)), type: "TIMESTAMP" },
      { name: "cat", data: of(() => ["a", " b ", "NA", "", "c"][Math.floor(r() * 5)]), type: "STRING", encoding: "RLE_DICTIONARY" },
      { name: "user", data: of(() => `u${Math.floor(r() * 800)}`), type: "STRING", encoding: "PLAIN" },
      // plain text needing normalizing: " a" and "a" are one value, "NA" is missing
      {
        name: "padded",
        data: of(() => [" a", "a", "NA", "b ", `w${Math.floor(r() * 300)}`][Math.floor(r() * 5)]),
        type: "STRING",
        encoding: "PLAIN",
      },
      { name: "text", data: of(() => `t${Math.floor(r() * 40)}`), type: "STRING", encoding: "DELTA_LENGTH_BYTE_ARRAY" },
      { name: "prefix", data: of(() => `p${Math.floor(r() * 40)}`), type: "STRING", encoding: "DELTA_BYTE_ARRAY" },
      { name: "empty", data: of(() => "never", 1), type: "STRING" },
      { name: "late", data: of((i) => (i < 2500 ? null : i), 0), type: "INT32" },
    ];
    const bytes = new Uint8Array(parquetWriteBuffer({ columnData: columns, rowGroupSize: 700, pageSize: 600 }));
    const frame = await expectAsReference(bytes);
    expect(frame.columns.map((c) => `${c.name}:${c.kind}`)).toEqual([
      "id:id",
      "x:numeric",
      "split:numeric",
      "small:numeric",
      "delta:numeric",
      "big:numeric",
      "flag:boolean",
      "when:datetime",
      "cat:categorical",
      "user:categorical",
      "padded:categorical",
      "text:categorical",
      "prefix:categorical",
      "empty:numeric", // all missing, as before
      "late:numeric",
    ]);
  });

  it("on DuckDB files (v1 pages): dictionary and plain strings, nulls, dates, booleans", async () => {
    const dir = mkdtempSync(join(tmpdir(), "parquet-pages-"));
    try {
      const path = join(dir, "t.parquet");
      const db = await DuckDBInstance.create(":memory:");
      const con = await db.connect();
      await con.run(`COPY (
        SELECT i::DOUBLE / 7 AS x,
          CASE WHEN i % 11 = 0 THEN NULL ELSE i % 97 END AS n,
          CASE WHEN i % 13 = 0 THEN NULL ELSE 'plan_' || (i % 5) END AS plan,
          'user_' || ((i * 7919) % 40000) AS "user",
          CASE WHEN i % 17 = 0 THEN NULL ELSE 'u' || ((i * 31) % 30011) END AS sparse,
          i % 3 = 0 AS flag,
          CASE WHEN i % 19 = 0 THEN NULL ELSE i % 4 = 0 END AS maybe,
          DATE '2020-01-01' + (i % 400)::INTEGER AS day,
          CASE WHEN i % 5 = 0 THEN 'NA' ELSE ' v' || (i % 4) END AS marked,
          CASE WHEN i % 7 = 0 THEN 'NA' WHEN i % 3 = 0 THEN ' id' || (i % 20000) ELSE 'id' || (i % 20000) END AS padded
        FROM range(60000) t(i)
      ) TO '${path}' (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 10000)`);
      con.closeSync();
      db.closeSync();
      const bytes = new Uint8Array(readFileSync(path));
      // many distinct values: DuckDB stores these PLAIN, so they go through ByteStrings
      const plain = parquetMetadata(bytes).row_groups[0].columns.filter((c) => !c.meta_data?.encodings.some((e) => e.endsWith("DICTIONARY")));
      expect(plain.map((c) => c.meta_data?.path_in_schema[0])).toEqual(expect.arrayContaining(["user", "sparse", "padded"]));
      const frame = await expectAsReference(bytes);
      expect(frame.rowCount).toBe(60000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
