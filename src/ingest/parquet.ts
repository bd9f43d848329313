import type { ColumnData, Compressors, FileMetaData } from "hyparquet";
import { parquetMetadata, parquetRead, parquetSchema } from "hyparquet";
import { MAX_FRAME_CELLS } from "../core/limits";
import { IngestError, tooLargeError } from "./errors";
import { validateHeader } from "./header";
import { ID_COLUMN, withRowIds } from "./ids";
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
 * streamed from the front) into a Frame. Column chunks arrive per row group and are written
 * straight into typed storage; rows are never assembled.
 */
export async function readParquet(bytes: ArrayBuffer | Uint8Array, options: ReadParquetOptions = {}): Promise<IngestResult> {
  const buffer = toArrayBuffer(bytes);
  if (buffer.byteLength === 0) throw new IngestError("empty_file", "The file is empty.");
  checkMagic(new Uint8Array(buffer));

  let metadata: FileMetaData;
  try {
    metadata = parquetMetadata(buffer);
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
  try {
    await parquetRead({ file: buffer, metadata, compressors: options.compressors, onChunk });
  } catch (e) {
    throw corrupt(e); // decoding and decompression faults (the callback's are in `fault`)
  }
  if (fault) throw fault.error instanceof IngestError ? fault.error : corrupt(fault.error);
  const frameColumns = [...columns.values()].map((c) => c.finish());
  const withIds = withRowIds(frameColumns, rows);
  return { frame: { rowCount: rows, columns: withIds.columns }, format: "parquet", idGenerated: withIds.idGenerated, bytes: buffer.byteLength };
}

function toArrayBuffer(bytes: ArrayBuffer | Uint8Array): ArrayBuffer {
  if (bytes instanceof ArrayBuffer) return bytes;
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes.buffer as ArrayBuffer;
  return bytes.slice().buffer as ArrayBuffer;
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
