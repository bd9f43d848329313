/**
 * A Parquet file read as it arrives (the trainer, large uploads): its footer first, by two small
 * range reads (the magic at both ends, then the metadata), then the file streamed from its start,
 * each row group decoded as soon as its bytes are in (./row-group-bytes) while the next ones
 * arrive, and its bytes then dropped. Memory: the frame plus a few row groups, not the file. The
 * same checks, decoder and errors as readParquet on the whole file (./parquet).
 */
import type { FileMetaData } from "hyparquet";
import { parquetMetadata, parquetSchema } from "hyparquet";
import { byteChunks } from "./chunks";
import { checkMagic, corrupt, readParquet } from "./parquet";
import { finishParquet, groupSpans, isFlat, planParquet, type ReadParquetOptions, RowGroupDecoder, rowsRead } from "./parquet-groups";
import { type HeldBytes, rowGroupBytes } from "./row-group-bytes";
import type { IngestResult } from "./types";

/** A file that can be read whole, as a stream, and by byte range. */
export interface RangedFile {
  /** Its size in bytes (as uploaded and verified). */
  bytes: number;
  /** The whole file, from its start (the caller's stream counts and checks its bytes). */
  open(): Promise<ReadableStream<Uint8Array>>;
  /** Bytes [start, endExclusive) of the file. */
  openRange(start: number, endExclusive: number): Promise<Uint8Array>;
}

export interface ReadParquetStreamOptions extends ReadParquetOptions {
  /** Complete row groups' bytes that may wait while one decodes (default READ_AHEAD_BYTES). */
  readAheadBytes?: number;
  /** Filled with the most file bytes held at once (tests, benches). */
  held?: HeldBytes;
  /** The footer's first guess (default FOOTER_GUESS); a file no longer is read whole. */
  footerBytes?: number;
}

/** The footer's first guess: most footers are a few KiB; a longer one costs a second read. */
const FOOTER_GUESS = 64 * 1024;
/** A few of the usual row groups (DuckDB's 122,880 rows are 2–10 MB): the download never waits
 * on one slow group, and memory stays far below a large file's. */
const READ_AHEAD_BYTES = 32 * 1024 * 1024;

export async function readParquetStream(file: RangedFile, options: ReadParquetStreamOptions = {}): Promise<IngestResult> {
  const whole = async () => readParquet(await wholeBytes(await file.open(), file.bytes), options);
  const guess = Math.max(16, options.footerBytes ?? FOOTER_GUESS);
  if (file.bytes <= guess) return whole(); // the footer's read would be the whole file
  const metadata = await readFooter(file, guess);
  // Fallbacks to the whole file: nested columns (lists, maps, structs), which hyparquet assembles
  // from the file in memory (readParquet's readNestedColumns), and row groups not laid out in
  // ascending byte order (no writer known here does that). Checked before planParquet allocates.
  const flat = parquetSchema(metadata).children.every(isFlat);
  const spans = flat ? groupSpans(metadata, file.bytes) : undefined;
  if (!spans) return whole();
  const plan = planParquet(metadata, options);
  const decoder = new RowGroupDecoder(plan, options.compressors);
  const groups = rowGroupBytes(await file.open(), spans, { readAheadBytes: options.readAheadBytes ?? READ_AHEAD_BYTES, held: options.held });
  let rows = 0;
  for await (const { index, bytes, offset } of groups) {
    for (const chunk of decoder.flatChunks(index)) {
      decoder.decodeChunk(index, chunk, bytes, offset);
      await turn(); // let the download go on between chunks
    }
    rows += Number(metadata.row_groups[index].num_rows);
    await options.onRows?.(rowsRead(plan, rows), false);
  }
  await options.onRows?.(rowsRead(plan, plan.rows), true);
  return finishParquet(plan, file.bytes);
}

/** The metadata from the end of the file, after the magic at both ends (checked as readParquet does). */
async function readFooter(file: RangedFile, guess: number): Promise<FileMetaData> {
  const size = file.bytes;
  const [head, tail] = await Promise.all([range(file, 0, 4), range(file, size - guess, size)]);
  checkMagic(head, tail, size);
  const length = new DataView(tail.buffer, tail.byteOffset, tail.byteLength).getUint32(tail.length - 8, true);
  if (length > size - 8) {
    // hyparquet's words for the same fault in a file in memory, without reading the file
    throw corrupt(new Error(`parquet metadata length ${length} exceeds available buffer ${size - 8}`));
  }
  const footer = length + 8 <= tail.length ? tail : await range(file, size - length - 8, size);
  try {
    return parquetMetadata(footer);
  } catch (e) {
    throw corrupt(e);
  }
}

async function range(file: RangedFile, start: number, end: number): Promise<Uint8Array> {
  const bytes = await file.openRange(start, end);
  // A transfer fault (retried), not a fault of the file.
  if (bytes.length !== end - start) throw new Error(`bytes ${start}–${end} of the file were read as ${bytes.length} bytes: the transfer went wrong.`);
  return bytes;
}

const turn = () => new Promise<void>((resolve) => (typeof setImmediate === "function" ? setImmediate(resolve) : setTimeout(resolve, 0)));

/** A Parquet file's bytes in one buffer (its footer is at the end): one copy, sized up front. */
export async function wholeBytes(stream: ReadableStream<Uint8Array>, declared: number): Promise<Uint8Array> {
  let out = new Uint8Array(declared);
  let at = 0;
  for await (const chunk of byteChunks(stream)) {
    if (at + chunk.length > out.length) {
      const grown = new Uint8Array(Math.max(out.length * 2, at + chunk.length));
      grown.set(out.subarray(0, at));
      out = grown;
    }
    out.set(chunk, at);
    at += chunk.length;
  }
  return out.subarray(0, at);
}
