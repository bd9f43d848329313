import type { ColumnData, Compressors, FileMetaData } from "hyparquet";
import { parquetMetadata, parquetRead } from "hyparquet";
import { IngestError } from "./errors";
import type { ParquetColumn } from "./parquet-column";
import { finishParquet, planParquet, type ReadParquetOptions, RowGroupDecoder } from "./parquet-groups";
import type { IngestResult } from "./types";

export type { ReadParquetOptions } from "./parquet-groups";

/**
 * Reads a whole Parquet file (already in memory) into a Frame. Column chunks are decoded row group
 * by row group, page by page, straight into typed storage; rows are never assembled. The trainer
 * reads large files as they arrive instead (./parquet-stream), with the same row-group decoder.
 */
export async function readParquet(bytes: ArrayBuffer | Uint8Array, options: ReadParquetOptions = {}): Promise<IngestResult> {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (u8.byteLength === 0) throw new IngestError("empty_file", "The file is empty.");
  checkMagic(u8, u8, u8.length);

  let metadata: FileMetaData;
  try {
    metadata = parquetMetadata(u8);
  } catch (e) {
    throw corrupt(e);
  }
  const plan = planParquet(metadata, options);
  try {
    const decoder = new RowGroupDecoder(plan, options.compressors);
    for (let g = 0; g < metadata.row_groups.length; g++) {
      for (const chunk of decoder.flatChunks(g)) decoder.decodeChunk(g, chunk, u8, 0);
    }
    if (plan.nested.length > 0) await readNestedColumns(u8, metadata, plan.nested, plan.columns, options.compressors);
  } catch (e) {
    throw e instanceof IngestError ? e : corrupt(e); // decoding and decompression faults
  }
  return finishParquet(plan, u8.byteLength);
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

/**
 * A Parquet file starts and ends with "PAR1"; a missing end marker means a truncated upload.
 * `head` holds the file's first bytes, `tail` its last, `size` its length (one buffer twice for a
 * file in memory).
 */
export function checkMagic(head: Uint8Array, tail: Uint8Array, size: number): void {
  const at = (u8: Uint8Array, i: number) => String.fromCharCode(u8[i], u8[i + 1], u8[i + 2], u8[i + 3]);
  if (size < 12 || head.length < 4 || at(head, 0) !== "PAR1") {
    throw new IngestError("corrupt_parquet", "The file is not a Parquet file: it does not start with the Parquet marker PAR1.");
  }
  if (tail.length < 4 || at(tail, tail.length - 4) !== "PAR1") {
    throw new IngestError(
      "corrupt_parquet",
      "The Parquet file is incomplete: it does not end with the Parquet footer, so it was probably truncated during upload or export. Upload the complete file.",
    );
  }
}

export function corrupt(e: unknown): IngestError {
  const detail = e instanceof Error ? e.message.replace(/^parquet\s*/i, "") : String(e);
  return new IngestError("corrupt_parquet", `The Parquet file could not be read (${detail}); it may be corrupt or truncated.`);
}
