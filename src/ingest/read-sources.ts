/**
 * A dataset version's uploaded files → one frame: each file read as it arrives (CSV streamed,
 * Parquet once its bytes are in), in order, then concatenated. One reader for both places that
 * ingest: the queue consumer in the Worker (small uploads) and the trainer (large ones), each
 * opening the files its own way and reporting progress in bytes read.
 */
import type { Compressors } from "hyparquet";
import type { Frame } from "../ml/frame";
import { concatFrames } from "./concat";
import { readCsv } from "./csv";
import { IngestError } from "./errors";
import { readParquet } from "./parquet";
import { readParquetStream, wholeBytes } from "./parquet-stream";
import type { IngestResult, ReadOptions } from "./types";

export interface SourceFile {
  filename: string;
  bytes: number;
  /** The file's bytes as a stream (the adapter throws when the file is gone). */
  open(): Promise<ReadableStream<Uint8Array>>;
  /**
   * Bytes [start, endExclusive) of the file (the trainer: a Range request). With it a Parquet file
   * is read as it arrives, its footer first (./parquet-stream); without it (the Worker's small
   * files) the file is read whole, then decoded.
   */
  openRange?(start: number, endExclusive: number): Promise<Uint8Array>;
}

export interface ReadSourcesOptions {
  format: "csv" | "parquet";
  maxCells: number;
  compressors: Compressors;
  /**
   * Size each CSV column once from the file's size and the first records' bytes (the trainer:
   * large files, where doubling arrays costs copies and full GCs). Not in a Worker: a file whose
   * first records are short would reserve columns for many more rows than it has, and a Worker's
   * files are small enough for doubling.
   */
  sizeColumnsFromFile?: boolean;
  /** Called as bytes are read (every PROGRESS_BYTES at most), with the total of all files. */
  onProgress?: (bytesRead: number, totalBytes: number) => Promise<void>;
  /** The readers' reports of rows read (ReadOptions.onRows), for a frame stored as it is read;
   * given for a single file only (several files are joined into one frame at the end). */
  onRows?: ReadOptions["onRows"];
  /** How many bytes between two progress reports; PROGRESS_BYTES unless given (tests). */
  progressEveryBytes?: number;
}

const PROGRESS_BYTES = 16 * 1024 * 1024;

export async function readSources(files: SourceFile[], opts: ReadSourcesOptions): Promise<{ frame: Frame; idGenerated: boolean }> {
  const total = files.reduce((s, f) => s + f.bytes, 0);
  let read = 0;
  let reported = 0;
  const progress = progressSender(opts.onProgress);
  // Also checks that the file's bytes are exactly the uploaded ones (its size was verified when
  // the upload completed): a transfer cut short but closed cleanly must not be read as a shorter
  // table, nor its cut last record blamed on the file. Failing in the stream, before the reader
  // sees an end, makes it a transient error (the job is retried), not bad input.
  const counted = (stream: ReadableStream<Uint8Array>, f: SourceFile) => {
    let fileRead = 0;
    const wrongSize = () => new Error(`'${f.filename}' was read as ${fileRead} bytes, not the ${f.bytes} uploaded: its transfer went wrong.`);
    return stream.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        async transform(chunk, out) {
          read += chunk.byteLength;
          fileRead += chunk.byteLength;
          if (fileRead > f.bytes) throw wrongSize();
          out.enqueue(chunk);
          if (opts.onProgress && read - reported >= (opts.progressEveryBytes ?? PROGRESS_BYTES)) {
            reported = read;
            await progress.send(read, total);
          }
        },
        async flush() {
          if (fileRead !== f.bytes) throw wrongSize();
          await progress.settle();
        },
      }),
    );
  };
  const results: IngestResult[] = [];
  for (const f of files) {
    const open = async () => counted(await f.open(), f);
    const onRows = files.length === 1 ? opts.onRows : undefined;
    const parquet = { compressors: opts.compressors, maxCells: opts.maxCells, onRows };
    const { openRange } = f;
    try {
      results.push(
        opts.format === "csv"
          ? await readCsv(await open(), { maxCells: opts.maxCells, fileBytes: opts.sizeColumnsFromFile ? f.bytes : undefined, onRows })
          : openRange
            ? await readParquetStream({ bytes: f.bytes, open, openRange: (start, end) => openRange.call(f, start, end) }, parquet)
            : await readParquet(await wholeBytes(await open(), f.bytes), parquet),
      );
    } catch (e) {
      // Of several files, say which one is bad: "line 3" alone would not tell.
      if (e instanceof IngestError && files.length > 1) throw new IngestError(e.code, `In '${f.filename}': ${e.message}`);
      throw e;
    }
    await opts.onProgress?.(read, total);
  }
  const idGenerated = results.every((r) => r.idGenerated);
  const frame =
    results.length === 1
      ? results[0].frame
      : concatFrames(
          results.map((r, i) => ({ frame: r.frame, name: files[i].filename })),
          idGenerated,
        );
  return { frame, idGenerated };
}

/**
 * Progress reports that do not stall the read: a report is a round trip to the Worker, and
 * awaiting each one held back the stream (and the reader) for that long every PROGRESS_BYTES.
 * A report is sent and left running; the next one first waits for it (long done by then), so at
 * most one is in flight and its failure (e.g. the job was canceled) still stops the read, one
 * report later.
 */
function progressSender(onProgress: ReadSourcesOptions["onProgress"]) {
  let inFlight: Promise<void> | undefined;
  const settle = async () => {
    const last = inFlight;
    inFlight = undefined;
    await last;
  };
  return {
    settle,
    async send(read: number, total: number): Promise<void> {
      await settle();
      if (!onProgress) return;
      const sent = onProgress(read, total);
      sent.catch(() => {}); // observed by the next settle; not an unhandled rejection meanwhile
      inFlight = sent;
    },
  };
}
