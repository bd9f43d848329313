import { readFileSync } from "node:fs";
import { parquetMetadata } from "hyparquet";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readCsv } from "../../src/ingest/csv";
import { IngestError } from "../../src/ingest/errors";
import { nodeCompressors } from "../../src/ingest/node-compressors";
import { readParquet } from "../../src/ingest/parquet";
import { ParquetColumn } from "../../src/ingest/parquet-column";
import { BENCH, expectIngestError, utf8 } from "./helpers";

const bench = (name: string) => new Uint8Array(readFileSync(`${BENCH}/${name}`));
const fertility = () => bench("fertility.parquet"); // 254,654 rows in 3 row groups, 8 columns

const varint = (n: number) => {
  const out: number[] = [];
  for (; n >= 0x80; n = Math.floor(n / 128)) out.push((n % 128) | 0x80);
  return [...out, n];
};

/** A copy whose footer declares `rows` rows: patches FileMetaData.num_rows (thrift field 3, i64,
 * the first "0x16 + zigzag varint" of that value in the footer) with a varint of the same length. */
function withDeclaredRows(bytes: Uint8Array, from: number, rows: number): Uint8Array {
  const [old, next] = [varint(from * 2), varint(rows * 2)];
  expect(next.length).toBe(old.length);
  const footerStart = bytes.length - 8 - new DataView(bytes.buffer, bytes.byteOffset).getUint32(bytes.length - 8, true);
  const pattern = [0x16, ...old];
  for (let i = footerStart; i < bytes.length - pattern.length; i++) {
    if (pattern.every((b, k) => bytes[i + k] === b)) {
      const out = bytes.slice();
      out.set(next, i + 1);
      return out;
    }
  }
  throw new Error("num_rows not found in the footer");
}

afterEach(() => vi.restoreAllMocks());

describe("Parquet faults inside hyparquet's chunk callback", () => {
  it("reports a failure while storing a chunk instead of returning an incomplete column", async () => {
    vi.spyOn(ParquetColumn.prototype, "write").mockImplementationOnce(() => {
      throw new RangeError("Array buffer allocation failed");
    });
    await expectIngestError(readParquet(fertility(), { compressors: nodeCompressors }), "corrupt_parquet", /Array buffer allocation failed/);
  });

  it("rejects row groups holding more rows than the footer declares", async () => {
    const bytes = withDeclaredRows(fertility(), 254654, 200000);
    const e = await expectIngestError(readParquet(bytes, { compressors: nodeCompressors }), "corrupt_parquet", /more rows than .* 200000/);
    expect(e).toBeInstanceOf(IngestError);
  });
});

describe("the cell budget (MAX_FRAME_CELLS)", () => {
  it("refuses a Parquet file declaring more cells than the default budget, before allocating", async () => {
    const bytes = withDeclaredRows(bench("diamonds.parquet"), 53940, 1048575); // x (10 columns + id) = 11.5 M cells
    await expectIngestError(
      readParquet(bytes, { compressors: nodeCompressors }),
      "too_large",
      /1,048,575 rows × 10 columns.*at most 10,000,000 cells.*without the trainer container/,
    );
  });

  it("takes a larger budget as an option", async () => {
    const ok = await readParquet(fertility(), { compressors: nodeCompressors, maxCells: 3_000_000 });
    expect(ok.frame.rowCount).toBe(254654);
    await expectIngestError(readParquet(fertility(), { compressors: nodeCompressors, maxCells: 2_000_000 }), "too_large", /254,654 rows × 8 columns/);
  });

  it("stops a CSV once rows × columns cross the budget", async () => {
    const text = `a,b\n${"1,x\n".repeat(100_000)}`;
    await expectIngestError(readCsv(utf8(text), { maxCells: 150_000 }), "too_large", /at least [\d,]+ rows × 2 columns.*at most 150,000 cells/);
    expect((await readCsv(utf8(text), { maxCells: 300_000 })).frame.rowCount).toBe(100_000);
  });
});

describe("a damaged column chunk", () => {
  it("is named in the error: its column, its row group and its bytes in the file", async () => {
    const bytes = fertility();
    const meta = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    const chunk = meta.row_groups[1].columns[2].meta_data!;
    const start = Number(chunk.dictionary_page_offset ?? chunk.data_page_offset);
    const damaged = bytes.slice();
    damaged.fill(0xff, start, start + 16); // the chunk's first page header
    const name = chunk.path_in_schema[0];
    await expectIngestError(
      readParquet(damaged, { compressors: nodeCompressors }),
      "corrupt_parquet",
      new RegExp(`column '${name}', row group 2 of 3, bytes ${start}–${start + Number(chunk.total_compressed_size)}`),
    );
  });
});
