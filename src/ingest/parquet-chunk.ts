/**
 * Decodes one column chunk of a flat (non-nested) Parquet column page by page, straight into a
 * ParquetColumn, with hyparquet's own page-level functions (header, decompression, plain values,
 * type conversion). What this adds over hyparquet's readColumn: a page's values are handed on as
 * decoded (present values packed, definition levels beside them, dictionary indices kept as
 * indices) instead of as one JS value per row, and nothing outlives its page: hyparquet's
 * parquetRead decodes every chunk of the file before the first callback runs.
 */
import { type ColumnChunk, type Compressors, type DataPageHeader, type DecodedArray, type SchemaTree, snappyUncompress } from "hyparquet";
import { parquetHeader } from "hyparquet/src/column.js";
import { convert, DEFAULT_PARSERS } from "hyparquet/src/convert.js";
import { decompressPage, readDataPage, readDataPageV2 } from "hyparquet/src/datapage.js";
import { readPlain } from "hyparquet/src/plain.js";
import type { ByteStrings } from "./byte-strings";
import type { ParquetColumn } from "./parquet-column";
import { allOnes, readHybrid } from "./rle-hybrid";

/** hyparquet's per-column decoding parameters (a type its package index does not export). */
type ColumnDecoder = Parameters<typeof readDataPage>[2];

/**
 * A decoded data page: `rows` rows, defs (0 = missing) unless all are present, the present rows'
 * values packed: plain (as stored, before type conversion), dictionary indices, or ids into the
 * column's ByteStrings.
 */
interface DataPage {
  rows: number;
  defs: ArrayLike<number> | undefined;
  values: DecodedArray;
  encoding: "plain" | "dictionary" | "strings" | "booleans";
}

/** PLAIN booleans are handed on as indices into this (a JS boolean per value cost an array of
 * them per page and a type check per value). */
const BOOLEANS: readonly boolean[] = [false, true];

/**
 * Buffers reused from data page to data page (decompressed bytes, definition levels, dictionary
 * indices): a fresh typed array per page was ≈ 1 GB of short-lived buffers at 10 M rows, and V8
 * runs full collections for external memory. Safe because everything read from a data page is
 * consumed (copied into the column) before the next page is read; a dictionary page, which
 * outlives the pages after it, gets buffers of its own. JavaScript runs one page at a time.
 */
const scratch = { page: new Uint8Array(0), defs: new Uint8Array(0), indices: new Int32Array(0) };

/** The first `n` elements of scratch[key], grown (not shrunk) to hold them. */
function scratchOf<K extends keyof typeof scratch>(key: K, n: number): (typeof scratch)[K] {
  if (scratch[key].length < n) {
    const size = Math.max(n, 2 * scratch[key].length);
    (scratch as Record<K, Uint8Array | Int32Array>)[key] = key === "indices" ? new Int32Array(size) : new Uint8Array(size);
  }
  return scratch[key].subarray(0, n) as (typeof scratch)[K];
}

/** A data page's bytes decompressed: SNAPPY (hyparquet's own decoder, unless `compressors` has
 * one) into the reused buffer, anything else as hyparquet's decompressPage does. */
function decompressDataPage(bytes: Uint8Array, size: number, decoder: ColumnDecoder): Uint8Array {
  if (decoder.codec !== "SNAPPY" || decoder.compressors?.SNAPPY) return decompressPage(bytes, size, decoder.codec, decoder.compressors);
  const page = scratchOf("page", size);
  snappyUncompress(bytes, page);
  return page;
}

/** The column's decoder, as hyparquet's page functions take it; `schemaPath` = [root, column]. */
export function columnDecoder(chunk: ColumnChunk, schemaPath: SchemaTree[], compressors: Compressors | undefined): ColumnDecoder {
  const meta = chunk.meta_data;
  if (!meta) throw new Error("parquet column metadata is undefined");
  if (chunk.file_path) throw new Error("parquet file_path not supported");
  return {
    pathInSchema: meta.path_in_schema,
    type: meta.type,
    element: schemaPath[schemaPath.length - 1].element,
    schemaPath,
    codec: meta.codec,
    parsers: DEFAULT_PARSERS,
    compressors,
  };
}

/** Whether hyparquet turns the column's values into strings (UTF-8 text): such PLAIN pages can go
 * through a ByteStrings. */
export function isTextColumn(decoder: ColumnDecoder): boolean {
  const { type, converted_type: c, logical_type: l } = decoder.element;
  return type === "BYTE_ARRAY" && (c === undefined || c === "UTF8" || c === "ENUM") && (l === undefined || l.type === "STRING" || l.type === "ENUM");
}

/** Where a column chunk's bytes start in the file (its dictionary page, if any, comes first). */
export function chunkStart(meta: NonNullable<ColumnChunk["meta_data"]>): number {
  return Number(meta.dictionary_page_offset || meta.data_page_offset);
}

/**
 * Reads the chunk's pages into rows groupStart... of the column; `strings`, for a text column, the
 * column's ByteStrings (kept from chunk to chunk). `bytes` holds the file's bytes from byte
 * `offset` on (the whole file, or the row group's bytes as streamed) up to the end of the chunk,
 * or else up to the end of the file.
 */
export function readColumnChunk(
  bytes: Uint8Array,
  offset: number,
  chunk: ColumnChunk,
  decoder: ColumnDecoder,
  groupStart: number,
  groupRows: number,
  column: ParquetColumn,
  strings: ByteStrings | undefined,
): void {
  const meta = chunk.meta_data!;
  const start = chunkStart(meta);
  const length = Number(meta.total_compressed_size);
  if (start + length > offset + bytes.length) throw new Error(`parquet column chunk ends at byte ${start + length}, past the end of the file`);
  if (start < offset) throw new Error(`parquet column chunk starts at byte ${start}, before the bytes read from ${offset}`);
  const at = bytes.byteOffset + start - offset; // the chunk's first byte in bytes.buffer
  const reader = { view: new DataView(bytes.buffer, at, length), offset: 0 };
  let dictionary: DecodedArray | undefined;
  let rows = 0;
  while (rows < groupRows && reader.offset < length - 1) {
    const header = parquetHeader(reader);
    // Within the chunk: its bytes are all a streamed read is sure to hold.
    if (reader.offset + header.compressed_page_size > length) {
      throw new Error(`parquet page of ${header.compressed_page_size} bytes at byte ${start + reader.offset} runs past the end of its column chunk`);
    }
    const pageBytes = new Uint8Array(bytes.buffer, at + reader.offset, header.compressed_page_size);
    reader.offset += header.compressed_page_size;
    if (header.type === "DICTIONARY_PAGE") {
      const page = decompressPage(pageBytes, header.uncompressed_page_size, decoder.codec, decoder.compressors);
      const count = header.dictionary_page_header?.num_values ?? 0;
      const plain = readPlain(
        { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 },
        decoder.type,
        count,
        decoder.element.type_length,
      );
      dictionary = convert(plain, decoder);
      continue;
    }
    let page: DataPage;
    if (header.type === "DATA_PAGE") {
      if (!header.data_page_header) throw new Error("parquet data page header is undefined");
      const data = decompressDataPage(pageBytes, header.uncompressed_page_size, decoder);
      page = readPageV1(data, header.data_page_header, decoder, strings);
    } else if (header.type === "DATA_PAGE_V2") {
      const h = header.data_page_header_v2;
      if (!h) throw new Error("parquet data page header v2 is undefined");
      const { definitionLevels, dataPage } = readDataPageV2(pageBytes, header, decoder);
      const encoding = h.encoding.endsWith("_DICTIONARY") ? "dictionary" : "plain";
      page = { rows: h.num_values, defs: present(definitionLevels), values: dataPage, encoding };
    } else {
      throw new Error(`parquet unsupported page type: ${header.type}`);
    }
    if (page.encoding === "dictionary" && !dictionary) throw new Error("parquet dictionary-encoded page without a dictionary page");
    const values = page.encoding === "plain" ? convert(page.values, decoder) : page.values;
    const pageDictionary =
      page.encoding === "dictionary"
        ? dictionary
        : page.encoding === "strings"
          ? strings?.strings
          : page.encoding === "booleans"
            ? BOOLEANS
            : undefined;
    column.write(groupStart + rows, values, { rows: page.rows, defs: page.defs, dictionary: pageDictionary, distinct: page.encoding === "strings" });
    rows += page.rows;
  }
}

/** A version-1 data page of a flat column. Levels and dictionary indices are decoded here into
 * typed arrays (hyparquet's readDataPage makes JS arrays), PLAIN text into ByteStrings ids;
 * other encodings go to readDataPage. */
function readPageV1(page: Uint8Array, header: DataPageHeader, decoder: ColumnDecoder, strings: ByteStrings | undefined): DataPage {
  const rows = header.num_values;
  const encoding = header.encoding === "PLAIN" ? "plain" : header.encoding.endsWith("_DICTIONARY") ? "dictionary" : undefined;
  if (!encoding) {
    const { definitionLevels, dataPage } = readDataPage(page, header, decoder);
    return { rows, defs: present(definitionLevels), values: dataPage, encoding: "plain" };
  }
  const reader = { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 };
  let defs: Uint8Array | undefined;
  let count = rows;
  // flat: the definition level is 1 (present) or 0 (null), RLE/bit-packed at width 1; a page
  // without nulls needs no levels array
  if (decoder.element.repetition_type !== "REQUIRED" && !allOnes(reader, rows)) {
    defs = scratchOf("defs", rows);
    readHybrid(reader, 1, defs);
    count = sum(defs);
    if (count === rows) defs = undefined;
  }
  if (encoding === "plain") {
    const ids = strings?.readPage(page, reader.offset, count);
    if (ids) return { rows, defs, values: ids, encoding: "strings" };
    // bit-packed, LSB first; a page too short is left to readPlain (its error)
    if (decoder.type === "BOOLEAN" && reader.offset + Math.ceil(count / 8) <= page.byteLength) {
      const bits = scratchOf("indices", count);
      unpackBits(page, reader.offset, bits);
      return { rows, defs, values: bits, encoding: "booleans" };
    }
    return { rows, defs, values: readPlain(reader, decoder.type, count, decoder.element.type_length), encoding };
  }
  const indices = scratchOf("indices", count);
  if (count === 0) return { rows, defs, values: indices, encoding }; // all null: no index to decode
  const width = reader.view.getUint8(reader.offset++);
  if (width > 0) readHybrid(reader, width, indices, page.byteLength - reader.offset);
  else indices.fill(0); // a dictionary of one entry: every index 0 (the buffer is reused)
  return { rows, defs, values: indices, encoding };
}

/** hyparquet's definition levels (empty or undefined when none is null) as PageLayout's defs. */
function present(levels: ArrayLike<number> | undefined): ArrayLike<number> | undefined {
  return levels && levels.length > 0 ? levels : undefined;
}

// The loops below are functions of their own, with nothing after the loop: see row-dictionary.ts
// (V8 compiles a long loop while it runs; code after it that has not run yet is thrown away).

function sum(levels: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < levels.length; i++) n += levels[i];
  return n;
}

/** out.length bits from byte `at` of `bytes`, least significant first, as 0 or 1. */
function unpackBits(bytes: Uint8Array, at: number, out: Int32Array): void {
  for (let i = 0; i < out.length; i++) out[i] = (bytes[at + (i >> 3)] >> (i & 7)) & 1;
}
