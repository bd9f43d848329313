import Papa from "papaparse";
import { MAX_RECORD_CHARS } from "../core/limits";
import { byteChunks } from "./chunks";
import { detectDelimiter, detectNewline, type Newline } from "./csv-sniff";
import { CsvTable } from "./csv-table";
import { CsvTokenizer } from "./csv-tokenizer";
import { IngestError } from "./errors";
import { withRowIds } from "./ids";
import type { IngestResult, ReadCsvOptions } from "./types";
import { Utf8Stream, utf8Length } from "./utf8";

/** Text is handed to the tokenizer in pieces of about this many characters (a tuning, not a limit). */
const PARSE_CHUNK_CHARS = 256 * 1024;

/**
 * Reads a CSV (or TSV, semicolon- or pipe-separated) file into a Frame, streaming: bytes are
 * decoded incrementally as strict UTF-8, text is tokenized in pieces of about 256k characters
 * (by CsvTokenizer, hand-written for speed, for a one-character delimiter; by papaparse for
 * any other forced delimiter), and the tokenizer tells where the last complete record ended; the
 * unfinished tail (possibly a quoted field spanning pieces) is carried into the next piece.
 * Only the per-column codes and distinct values are kept, never the rows; past a sample of
 * records, columns of numbers are read straight into numbers instead (CsvTable).
 */
export function readCsv(input: ReadableStream<Uint8Array> | Uint8Array, options: ReadCsvOptions = {}): Promise<IngestResult> {
  return read(input, options, false, true);
}

/** readCsv with papaparse as the tokenizer whatever the delimiter: the reference the fast
 * tokenizer is tested against. */
export function readCsvWithPapaparse(input: ReadableStream<Uint8Array> | Uint8Array, options: ReadCsvOptions = {}): Promise<IngestResult> {
  return read(input, options, true, true);
}

/** readCsv with every column dictionary-encoded to the end, typed only by inferColumn (the reader
 * before numeric columns were read into numbers during the pass): the reference typed reading is
 * tested and benchmarked against. */
export function readCsvAllDictionary(input: ReadableStream<Uint8Array> | Uint8Array, options: ReadCsvOptions = {}): Promise<IngestResult> {
  return read(input, options, false, false);
}

async function read(
  input: ReadableStream<Uint8Array> | Uint8Array,
  options: ReadCsvOptions,
  papaparse: boolean,
  typedNumbers: boolean,
): Promise<IngestResult> {
  const utf8 = new Utf8Stream();
  let reader: PieceReader | undefined;
  // The text not parsed yet, in pieces: joined into one flat string per parse, because reading
  // characters of a string built by `+=` goes through its parts (≈ 30% slower tokenizing).
  let pending: string[] = [];
  // Characters decoded since the last parse: a piece is parsed once that many arrived. Not
  // counting the unparsed tail carried over, so that a long unfinished record (up to
  // MAX_RECORD_CHARS) is not joined and scanned again for every small chunk that follows.
  let pendingLength = 0;
  let bytes = 0;

  const feed = (text: string, final: boolean): string => {
    if (reader === undefined) {
      if (!final && text.length < PARSE_CHUNK_CHARS) return text;
      reader = new PieceReader(text, final, options, papaparse, typedNumbers, utf8);
      // Line feeds for a UTF-8 error's line, counted only when one is built: those in the text
      // parsed so far, as the table's line count, and those in the text not parsed yet.
      if (reader.linesAreLineFeeds) {
        const table = reader.table;
        utf8.countLinesWith(() => table.line - 1 + lineFeeds(pending));
      }
    }
    return reader.parse(text, final);
  };

  for await (const chunk of byteChunks(input)) {
    bytes += chunk.length;
    const text = utf8.decode(chunk);
    pending.push(text);
    pendingLength += text.length;
    if (pendingLength >= PARSE_CHUNK_CHARS) {
      const rest = feed(pending.join(""), false);
      pending = [rest];
      pendingLength = 0;
    }
  }
  pending.push(utf8.end());
  feed(pending.join(""), true);

  const table = reader?.table;
  if (table?.names === undefined) throw new IngestError("empty_file", "The file is empty: it has no header row and no data.");
  if (table.rowCount === 0) {
    throw new IngestError("no_data_rows", `The file has a header row (${table.names.length} columns) but no data rows.`);
  }
  const { columns, idGenerated } = withRowIds(table.finish(), table.rowCount);
  return { frame: { rowCount: table.rowCount, columns }, format: "csv", delimiter: reader!.delimiter, idGenerated, bytes };
}

function lineFeeds(pieces: string[]): number {
  let n = 0;
  for (const piece of pieces) for (let i = piece.indexOf("\n"); i >= 0; i = piece.indexOf("\n", i + 1)) n++;
  return n;
}

/** The parser state once the first piece has fixed the line ending and delimiter. */
class PieceReader {
  readonly table: CsvTable;
  readonly delimiter: string;
  private readonly parser: Papa.Parser | undefined;
  private readonly tokenizer: CsvTokenizer | undefined;
  /**
   * Whether table.line - 1 is the number of line feeds in the text parsed so far. True with the
   * tokenizer on an LF file: each record ends at one line feed and the tokenizer counts those in
   * quoted fields. Not with CRLF (a lone LF after a closing quote is skipped as whitespace,
   * uncounted), CR, or papaparse.
   */
  readonly linesAreLineFeeds: boolean;

  constructor(
    firstPiece: string,
    final: boolean,
    options: ReadCsvOptions,
    papaparse: boolean,
    typedNumbers: boolean,
    private readonly utf8: Utf8Stream,
  ) {
    // NUL never occurs in text; without this check binary data that happens to be valid UTF-8
    // would fail later with a confusing "one column" or "ragged row" message.
    if (firstPiece.slice(0, 65536).includes("\u0000")) {
      throw new IngestError(
        "unsupported_format",
        "The file is not a CSV or Parquet file: it contains binary data. Upload a CSV (UTF-8 text) or a Parquet file.",
      );
    }
    const newline: Newline = detectNewline(firstPiece);
    // Sniff on complete lines only, at most the first 64k characters.
    const end = final ? firstPiece.length : firstPiece.lastIndexOf(newline, 65536);
    this.delimiter = options.delimiter ?? detectDelimiter(firstPiece.slice(0, end > 0 ? end : undefined), newline);
    this.table = new CsvTable(newline === "\r" ? "\r" : "\n", options, typedNumbers, (text, index) => this.byteAt(text, index));
    if (!papaparse && CsvTokenizer.handles(this.delimiter)) this.tokenizer = new CsvTokenizer(this.delimiter, newline, this.table);
    else this.parser = new Papa.Parser({ delimiter: this.delimiter, newline, quoteChar: '"' });
    this.linesAreLineFeeds = this.tokenizer !== undefined && newline === "\n";
  }

  /** Parses the complete records of `text` (all of it when final); returns the unparsed tail. */
  parse(text: string, final: boolean): string {
    let end: number;
    if (this.tokenizer) {
      end = this.tokenizer.parse(text, final);
      this.table.flushBatches(text);
      this.table.checkSize();
    } else {
      const result = this.parser!.parse(text, 0, !final);
      this.table.add(result.data, result.errors, text.includes('"'), final);
      end = result.meta.cursor;
    }
    const rest = text.slice(end);
    if (rest.length > MAX_RECORD_CHARS) {
      const where = `line ${this.table.line} (byte ${this.byteAt(text, end)})`;
      // A file that turns to zeros part way (written to a full disk, cut and padded) is valid
      // UTF-8 without a line break: say what it is rather than blame a quote.
      if (rest.includes("\u0000")) {
        throw new IngestError(
          "unsupported_format",
          `The file turns to binary data (NUL bytes) in the record starting on ${where}: it may be damaged or cut short. Upload the CSV again.`,
        );
      }
      throw new IngestError(
        "row_too_long",
        `The record starting on ${where} is longer than ${MAX_RECORD_CHARS / (1024 * 1024)} MB; most likely a quote is opened and never closed.`,
      );
    }
    return rest;
  }

  /**
   * The file's byte offset of text[index], for error messages only. The text being parsed is
   * always the end of what has been decoded so far (parse runs right after a decode), so counting
   * back from the bytes decoded needs only this text: no per-piece byte accounting, and a BOM the
   * decoder dropped from the front is still counted.
   */
  private byteAt(text: string, index: number): number {
    return this.utf8.decodedBytes() - utf8Length(text, index);
  }
}
