import Papa from "papaparse";
import { MAX_RECORD_CHARS } from "../core/limits";
import { isAscii } from "./ascii";
import { byteChunks } from "./chunks";
import { AsciiTokenizer } from "./csv-ascii-tokenizer";
import { detectDelimiter, detectNewline, type Newline } from "./csv-sniff";
import { CsvTable, NUMERIC_SAMPLE_ROWS } from "./csv-table";
import { CsvTokenizer } from "./csv-tokenizer";
import { IngestError } from "./errors";
import { withRowIds } from "./ids";
import { PendingBytes } from "./pending-bytes";
import type { IngestResult, ReadCsvOptions } from "./types";
import { Utf8Stream, utf8Length } from "./utf8";

/** Text is handed to the tokenizer in pieces of about this many characters (a tuning, not a limit). */
const PARSE_CHUNK_CHARS = 256 * 1024;

/**
 * Reads a CSV (or TSV, semicolon- or pipe-separated) file into a Frame, streaming: bytes are
 * checked incrementally as strict UTF-8 and tokenized in pieces of about 256k characters (a
 * piece of ASCII bytes as it is, by AsciiTokenizer; any other piece decoded, by CsvTokenizer;
 * both hand-written for speed, for a one-character delimiter; by papaparse for any other forced
 * delimiter), and the tokenizer tells where the last complete record ended; the unfinished tail
 * (possibly a quoted field spanning pieces) is carried into the next piece.
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
  // The bytes not parsed yet. Each chunk is validated as UTF-8 when it arrives (so a bad byte is
  // reported before any record after the last parse, as when chunks were decoded one by one).
  const pending = new PendingBytes();
  // Characters decoded since the last parse: a piece is parsed once that many arrived. Not
  // counting the unparsed tail carried over, so that a long unfinished record (up to
  // MAX_RECORD_CHARS) is not scanned again for every small chunk that follows.
  let pendingLength = 0;
  let bytes = 0;

  const feed = (final: boolean): void => {
    if (reader === undefined) {
      reader = new PieceReader(pending, final, options, papaparse, typedNumbers);
      // Line feeds for a UTF-8 error's line, counted only when one is built: those in the text
      // parsed so far, as the table's line count, and those in the bytes not parsed yet.
      if (reader.linesAreLineFeeds) {
        const table = reader.table;
        utf8.countLinesWith(() => table.line - 1 + pending.lineFeeds());
      }
    }
    reader.parse(final);
  };

  for await (const chunk of byteChunks(input)) {
    bytes += chunk.length;
    const ascii = isAscii(chunk);
    const text = utf8.check(chunk, ascii);
    pendingLength += text === null ? chunk.length : text.length;
    pending.append(chunk, ascii, text);
    if (pendingLength >= PARSE_CHUNK_CHARS) {
      feed(false);
      pendingLength = 0;
      // not during the sample: columns may still turn to numbers (CsvTable.typeColumns)
      if (options.onRows && reader!.table.rowCount > NUMERIC_SAMPLE_ROWS) await options.onRows(reader!.table.rowsRead(), false);
    }
  }
  utf8.end();
  feed(true);

  const table = reader?.table;
  if (table?.names === undefined) throw new IngestError("empty_file", "The file is empty: it has no header row and no data.");
  if (table.rowCount === 0) {
    throw new IngestError("no_data_rows", `The file has a header row (${table.names.length} columns) but no data rows.`);
  }
  await options.onRows?.(table.rowsRead(), true);
  const { columns, idGenerated } = withRowIds(table.finish(), table.rowCount);
  return { frame: { rowCount: table.rowCount, columns }, format: "csv", delimiter: reader!.delimiter, idGenerated, bytes };
}

/** The parser state once the first piece has fixed the line ending and delimiter. */
class PieceReader {
  readonly table: CsvTable;
  readonly delimiter: string;
  private readonly parser: Papa.Parser | undefined;
  private readonly tokenizer: CsvTokenizer | undefined;
  /** For a piece of ASCII bytes, when the delimiter is ASCII and papaparse is not asked for. */
  private readonly asciiTokenizer: AsciiTokenizer | undefined;
  /** The file offset just past the piece being parsed, when it was decoded (for byteAt). */
  private textEnd = 0;
  /**
   * Whether table.line - 1 is the number of line feeds in the text parsed so far. True with the
   * tokenizer on an LF file: each record ends at one line feed and the tokenizer counts those in
   * quoted fields. Not with CRLF (a lone LF after a closing quote is skipped as whitespace,
   * uncounted), CR, or papaparse.
   */
  readonly linesAreLineFeeds: boolean;

  constructor(
    private readonly pending: PendingBytes,
    final: boolean,
    options: ReadCsvOptions,
    papaparse: boolean,
    typedNumbers: boolean,
  ) {
    const firstPiece = this.decode(final).text;
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
    if (!papaparse && CsvTokenizer.handles(this.delimiter)) {
      this.tokenizer = new CsvTokenizer(this.delimiter, newline, this.table);
      if (AsciiTokenizer.handles(this.delimiter)) this.asciiTokenizer = new AsciiTokenizer(this.delimiter, newline, this.table);
    } else this.parser = new Papa.Parser({ delimiter: this.delimiter, newline, quoteChar: '"' });
    this.linesAreLineFeeds = this.tokenizer !== undefined && newline === "\n";
  }

  /** Parses the complete records of the pending bytes (all of them when final) and drops them. */
  parse(final: boolean): void {
    const pending = this.pending;
    if (this.asciiTokenizer !== undefined && pending.ascii) {
      const bytes = pending.view();
      const end = this.asciiTokenizer.parse(bytes, final);
      this.table.flushBatches("", bytes);
      this.table.checkSize();
      // ASCII: as many characters as bytes.
      if (bytes.length - end > MAX_RECORD_CHARS) this.tooLong(bytes, end, bytes.indexOf(0, end) >= 0);
      pending.consume(end, null);
      return;
    }
    const { text, bytes } = this.decode(final);
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
    if (text.length - end > MAX_RECORD_CHARS) this.tooLong(text, end, text.includes("\u0000", end));
    pending.consume(bytes - utf8Length(text, end), text.slice(end));
  }

  /** The pending bytes' complete characters as text (PendingBytes.text), noting where they end. */
  private decode(final: boolean): { text: string; bytes: number } {
    const decoded = this.pending.text(final);
    this.textEnd = this.pending.offset + decoded.bytes;
    return decoded;
  }

  /** The record starting at `end` of the piece is still unfinished past MAX_RECORD_CHARS. */
  private tooLong(piece: string | Uint8Array, end: number, nul: boolean): never {
    const where = `line ${this.table.line} (byte ${this.byteAt(piece, end)})`;
    // A file that turns to zeros part way (written to a full disk, cut and padded) is valid
    // UTF-8 without a line break: say what it is rather than blame a quote.
    if (nul) {
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

  /**
   * The file's byte offset of piece[index], for error messages and the row estimate. A piece of
   * bytes starts at the pending bytes' offset; a decoded piece ends at textEnd, so counting back
   * needs only its text (a BOM skipped at the front is still counted).
   */
  private byteAt(piece: string | Uint8Array, index: number): number {
    return typeof piece === "string" ? this.textEnd - utf8Length(piece, index) : this.pending.offset + index;
  }
}
