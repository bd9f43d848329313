import type { ColumnChunk, ColumnData, Compressors, FileMetaData, SchemaTree } from "hyparquet";
import { parquetMetadata, parquetRead, parquetSchema } from "hyparquet";
import { MAX_FRAME_CELLS } from "../core/limits";
import { ByteStrings } from "./byte-strings";
import { IngestError, tooLargeError } from "./errors";
import { validateHeader } from "./header";
import { ID_COLUMN, withRowIds } from "./ids";
import { columnDecoder, isTextColumn, readColumnChunk } from "./parquet-chunk";
import { ParquetColumn } from "./parquet-column";
import type { IngestResult, ReadOptions } from "./types";

export interface ReadParquetOptions extends ReadOptions {
  /** Extra page decompressors by codec name (hyparquet reads UNCOMPRESSED and SNAPPY itself):
   * `portableCompressors` (ZSTD, GZIP; Worker and Node) or, in Node only, `nodeCompressors`. */
  compressors?: Compressors;
}

const BUILT_IN_CODECS = new Set(["UNCOMPRESSED", "SNAPPY"]);

/**
 * Reads a whole Parquet file (already in memory: Parquet's footer is at the end, so it cannot be
 * streamed from the front) into a Frame. Column chunks are decoded row group by row group, page by
 * page, straight into typed storage; rows are never assembled.
 */
export async function readParquet(bytes: ArrayBuffer | Uint8Array, options: ReadParquetOptions = {}): Promise<IngestResult> {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (u8.byteLength === 0) throw new IngestError("empty_file", "The file is empty.");
  checkMagic(u8);

  let metadata: FileMetaData;
  try {
    metadata = parquetMetadata(u8);
  } catch (e) {
    throw corrupt(e);
  }
  const top = parquetSchema(metadata).children;
  const names = validateHeader(
    top.map((c) => c.element.name),
    "Parquet file",
    options.rawText ? 1 : undefined,
  );
  const rows = Number(metadata.num_rows);
  if (rows === 0) throw new IngestError("no_data_rows", `The Parquet file has ${names.length} columns but no rows.`);
  checkCodecs(metadata, options.compressors);
  // Before allocating anything per row: the footer's row count is all a column's storage costs.
  const maxCells = options.maxCells ?? MAX_FRAME_CELLS;
  if (rows * (names.length + (names.includes(ID_COLUMN) ? 0 : 1)) > maxCells) throw tooLargeError(rows, names.length, maxCells);

  const raw = (name: string) => options.rawText === true && name !== ID_COLUMN;
  const columns = new Map(names.map((n, i) => [top[i].element.name, new ParquetColumn(n, rows, raw(n))]));
  try {
    readFlatColumns(u8, metadata, columns, options.compressors);
    const nested = top.filter((c) => !isFlat(c)).map((c) => c.element.name);
    if (nested.length > 0) await readNestedColumns(u8, metadata, nested, columns, options.compressors);
  } catch (e) {
    throw e instanceof IngestError ? e : corrupt(e); // decoding and decompression faults
  }
  const frameColumns = [...columns.values()].map((c) => c.finish());
  const withIds = withRowIds(frameColumns, rows);
  return { frame: { rowCount: rows, columns: withIds.columns }, format: "parquet", idGenerated: withIds.idGenerated, bytes: u8.byteLength };
}

/** A top-level column that is a plain leaf (not a list, map or struct). */
function isFlat(c: SchemaTree): boolean {
  return c.children.length === 0 && c.element.repetition_type !== "REPEATED";
}

/**
 * The flat columns, row group by row group, each chunk decoded page by page into its column:
 * memory beyond the frame's storage is one page at a time.
 */
function readFlatColumns(file: Uint8Array, metadata: FileMetaData, columns: Map<string, ParquetColumn>, compressors: Compressors | undefined): void {
  const tree = parquetSchema(metadata);
  const nodes = new Map(tree.children.map((c) => [c.element.name, c]));
  const strings = new Map<string, ByteStrings>(); // per text column, from row group to row group
  let groupStart = 0;
  metadata.row_groups.forEach((group, g) => {
    const groupRows = Number(group.num_rows);
    for (const chunk of group.columns) {
      const path = chunk.meta_data?.path_in_schema ?? [];
      const node = nodes.get(path[0]);
      const column = columns.get(path[0]);
      if (!node || !column || path.length !== 1 || !isFlat(node)) continue;
      try {
        const decoder = columnDecoder(chunk, [tree, node], compressors);
        if (isTextColumn(decoder) && !strings.has(path[0])) strings.set(path[0], new ByteStrings());
        readColumnChunk(file, chunk, decoder, groupStart, groupRows, column, strings.get(path[0]));
      } catch (e) {
        throw e instanceof IngestError ? e : corruptChunk(e, path[0], g, metadata.row_groups.length, chunk.meta_data);
      }
    }
    groupStart += groupRows;
  });
}

/** A chunk that fails to decode, named: its column, its row group and where its bytes are in the file. */
function corruptChunk(e: unknown, column: string, group: number, groups: number, meta: ColumnChunk["meta_data"]): IngestError {
  const start = meta ? Number(meta.dictionary_page_offset ?? meta.data_page_offset) : undefined;
  const where = meta && start !== undefined ? `, bytes ${start}–${start + Number(meta.total_compressed_size)}` : "";
  const detail = e instanceof Error ? e.message.replace(/^parquet\s*/i, "") : String(e);
  return new IngestError(
    "corrupt_parquet",
    `The Parquet file could not be read: column '${column}', row group ${group + 1} of ${groups}${where} (${detail}); it may be corrupt or truncated.`,
  );
}

/**
 * Lists, maps and structs: hyparquet assembles them (as objects, stored as JSON text). Its
 * parquetRead decodes every chunk before the first callback, but such columns are rare here.
 */
async function readNestedColumns(
  file: Uint8Array,
  metadata: FileMetaData,
  names: string[],
  columns: Map<string, ParquetColumn>,
  compressors: Compressors | undefined,
): Promise<void> {
  // hyparquet runs onChunk in `.then(onChunk, () => {})` and does not await it: a throw there would
  // be an unhandled rejection while parquetRead resolves. So the callback keeps the first fault.
  let fault: { error: unknown } | undefined;
  const onChunk = ({ columnName, columnData, rowStart }: ColumnData) => {
    if (fault) return;
    try {
      columns.get(columnName)?.write(rowStart, columnData);
    } catch (error) {
      fault = { error };
    }
  };
  const buffer = { byteLength: file.byteLength, slice: (start: number, end?: number) => file.slice(start, end).buffer };
  await parquetRead({ file: buffer, metadata, columns: names, compressors, onChunk });
  if (fault) throw fault.error;
}

/** A Parquet file starts and ends with "PAR1"; a missing end marker means a truncated upload. */
function checkMagic(u8: Uint8Array): void {
  const at = (i: number) => String.fromCharCode(u8[i], u8[i + 1], u8[i + 2], u8[i + 3]);
  if (u8.length < 12 || at(0) !== "PAR1") {
    throw new IngestError("corrupt_parquet", "The file is not a Parquet file: it does not start with the Parquet marker PAR1.");
  }
  if (at(u8.length - 4) !== "PAR1") {
    throw new IngestError(
      "corrupt_parquet",
      "The Parquet file is incomplete: it does not end with the Parquet footer, so it was probably truncated during upload or export. Upload the complete file.",
    );
  }
}

function checkCodecs(metadata: FileMetaData, compressors: Compressors | undefined): void {
  for (const group of metadata.row_groups) {
    for (const chunk of group.columns) {
      const codec = chunk.meta_data?.codec;
      if (codec && !BUILT_IN_CODECS.has(codec) && !compressors?.[codec]) {
        throw new IngestError(
          "unsupported_parquet",
          `The Parquet file is compressed with ${codec}, which cannot be read here. Re-export it with Snappy compression (or none), or upload a CSV.`,
        );
      }
    }
  }
}

function corrupt(e: unknown): IngestError {
  const detail = e instanceof Error ? e.message.replace(/^parquet\s*/i, "") : String(e);
  return new IngestError("corrupt_parquet", `The Parquet file could not be read (${detail}); it may be corrupt or truncated.`);
}
