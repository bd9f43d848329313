import { MAX_FRAME_CELLS } from "../core/limits";
import type { Column } from "../ml/frame";
import { parseNumber } from "../ml/values";
import type { FieldSpans } from "./csv-tokenizer";
import { DictionaryBuilder } from "./dictionary-builder";
import { IngestError, tooLargeError } from "./errors";
import { validateHeader } from "./header";
import { ID_COLUMN, keptIdFromStrings } from "./ids";
import { inferColumn, inferNumericValues } from "./infer";
import { NumericBuilder } from "./numeric-builder";
import { SpanBatch } from "./span-batch";
import type { ProvisionalColumn, ReadCsvOptions, RowsRead } from "./types";

/**
 * Records after which columns whose values so far are all numbers are read straight into numbers
 * (NumericBuilder). A file of fewer records is dictionary-encoded throughout, as before; a larger
 * one keeps the sample's dictionary work (milliseconds) and saves a string and an index entry per
 * distinct number, and a hash look-up per cell, the bulk of reading a large numeric table. 8192 records is
 * enough for a text or code column to show a non-number (every value of 8192 would have to be a
 * number first: then the column falls back, exactly, only its earlier spellings normalized; see
 * NumericBuilder.toDictionary).
 */
export const NUMERIC_SAMPLE_ROWS = 8192;

interface PapaError {
  code: string;
  row?: number;
}

/**
 * Receives parsed records batch by batch, in file order: the first non-blank one is the header,
 * the rest are dictionary-encoded into one builder per column; after NUMERIC_SAMPLE_ROWS records,
 * a column whose distinct values are all numbers continues as numbers (see `typeColumns`). Tracks
 * physical line numbers (records may span lines inside quotes) so errors can say where they are.
 */
export class CsvTable {
  names: string[] | undefined;
  rowCount = 0;
  /** Line number at which the next record starts (1-based). */
  line = 1;
  /** Column j's dictionary builder, unless numbers[j] has taken over. */
  private builders: Array<DictionaryBuilder | undefined> = [];
  /** Column j's numeric builder once it reads numbers, else undefined. */
  private numbers: Array<NumericBuilder | undefined> = [];
  /** Column j's cells of this piece, held for its builder's pushBatch once its index is large
   * (see flushBatches), else undefined. Only a dictionary column has one. */
  private batches: Array<SpanBatch | undefined> = [];

  private readonly maxCells: number;

  /** `typedNumbers`: false keeps every column dictionary-encoded to the end (the reader before
   * numeric columns were typed during the pass: the reference for tests and benchmarks).
   * `byteAt`: the file's byte offset of a position in the text being parsed, asked only when a
   * record is bad, so the error can say where it is in a file too large to open in an editor. */
  constructor(
    private readonly lineChar: string,
    private readonly options: ReadCsvOptions = {},
    private readonly typedNumbers = true,
    private readonly byteAt?: (text: string | Uint8Array, index: number) => number,
  ) {
    this.maxCells = options.maxCells ?? MAX_FRAME_CELLS;
  }

  /** Papaparse's output for one piece. `quoted`: the batch's text contained a quote, so fields
   * may hold line breaks. `final`: the batch ends the file; otherwise errors past the last
   * complete record are about a record cut by the piece boundary, which is parsed again with the
   * next piece. */
  add(records: string[][], allErrors: PapaError[], quoted: boolean, final: boolean): void {
    const errors = final ? allErrors : allErrors.filter((e) => (e.row ?? Infinity) < records.length);
    const errorRow = errors.length === 0 ? Infinity : Math.min(...errors.map((e) => e.row ?? Infinity));
    for (let r = 0; r < records.length; r++) {
      if (r === errorRow) throw quoteError(errors[0].code, this.line);
      const fields = records[r];
      this.recordStrings(fields, quoted ? this.breaksIn(fields) : 0);
    }
    if (errors.length > 0) throw quoteError(errors[0].code, this.line);
    this.checkSize();
  }

  /** One record from the tokenizer, in file order; `breaks`: line breaks inside its fields. */
  record(fields: FieldSpans, breaks: number): void {
    const line = this.line;
    this.line += 1 + breaks;
    const count = fields.count;
    if (count === 1 && fields.get(0).trim() === "") return; // blank line
    if (this.names === undefined) {
      this.start(Array.from({ length: count }, (_, j) => fields.get(j)));
      return;
    }
    const builders = this.builders;
    const numbers = this.numbers;
    if (count !== builders.length) throw raggedError(line, count, builders.length, this.byteAt?.(fields.bytes ?? fields.text, fields.start));
    const batches = this.batches;
    const { text, bytes, starts, ends, hashes } = fields;
    for (let j = 0; j < count; j++) {
      const s = starts[j];
      const num = numbers[j];
      if (num !== undefined) {
        if (s < 0 ? num.push(fields.unescaped[j]) : bytes !== null ? num.pushBytes(bytes, s, ends[j]) : num.pushSpan(text, s, ends[j])) continue;
        this.toDictionary(j);
      }
      const batch = batches[j];
      if (batch !== undefined) {
        if (s < 0) batch.pushString(fields.unescaped[j]);
        else batch.push(s, ends[j], hashes[j]);
      } else if (s < 0) builders[j]!.push(fields.unescaped[j]);
      else if (bytes !== null) builders[j]!.pushBytes(bytes, s, ends[j], hashes[j]);
      else builders[j]!.pushSpan(text, s, ends[j], hashes[j]);
    }
    if (++this.rowCount === NUMERIC_SAMPLE_ROWS) {
      this.flushBatches(text, bytes); // typeColumns reads the builders' codes
      this.typeColumns(this.expectedRows(fields));
    }
  }

  /**
   * The rows the file should hold in all, from its size (options.fileBytes) and the bytes the
   * records so far took (up to the start of the current one), 2% more as margin, at most what the
   * cell budget allows; undefined when the size is not known. Records of a large file are alike
   * enough that 8,192 of them give its bytes per record within a fraction of a percent; a file
   * whose first records are longer than the rest only makes the columns double once more.
   */
  private expectedRows(fields: FieldSpans): number | undefined {
    const size = this.options.fileBytes;
    if (size === undefined || this.byteAt === undefined) return undefined;
    const consumed = this.byteAt(fields.bytes ?? fields.text, fields.start);
    if (consumed <= 0) return undefined;
    const cellsPerRow = this.builders.length + (this.names?.includes(ID_COLUMN) ? 0 : 1);
    const rows = Math.ceil(((this.rowCount * size) / consumed) * 1.02) + 1024;
    return Math.min(rows, Math.floor(this.maxCells / cellsPerRow) + 1);
  }

  /**
   * After each piece the tokenizer parsed (its text, or its bytes when ASCII; before the next piece replaces it) and at
   * the sample's end: the held cells go to their builders, and a column whose index has grown
   * large holds its cells from now on. Codes stay in file order: a column's cells are either all
   * pushed or all held between two flushes, and the held ones reach the builder before any later.
   */
  flushBatches(text: string, bytes: Uint8Array | null = null): void {
    const builders = this.builders;
    for (let j = 0; j < builders.length; j++) {
      const b = builders[j];
      const batch = this.batches[j];
      if (batch !== undefined && batch.count > 0) {
        b!.pushBatch(batch, text, bytes);
        batch.clear();
      } else if (batch === undefined && b?.large) this.batches[j] = new SpanBatch();
    }
  }

  /** The same for a record parsed by papaparse. */
  private recordStrings(fields: string[], breaks: number): void {
    const line = this.line;
    this.line += 1 + breaks;
    if (fields.length === 1 && fields[0].trim() === "") return; // blank line
    if (this.names === undefined) {
      this.start(fields);
      return;
    }
    if (fields.length !== this.builders.length) throw raggedError(line, fields.length, this.builders.length);
    for (let j = 0; j < fields.length; j++) {
      const num = this.numbers[j];
      if (num !== undefined) {
        if (num.push(fields[j])) continue;
        this.toDictionary(j);
      }
      this.builders[j]!.push(fields[j]);
    }
    if (++this.rowCount === NUMERIC_SAMPLE_ROWS) this.typeColumns();
  }

  /**
   * At NUMERIC_SAMPLE_ROWS records: every column whose distinct values so far all read as numbers
   * (parseNumber, as inferColumn will) continues in a NumericBuilder, its codes so far expanded to
   * numbers; not the file's `id` column (validated from its strings), nor anything with rawText.
   * Such a column cannot be boolean-like: no number is a boolean spelling. A column with no value
   * yet switches too (inferColumn would make it numeric; a later string makes it fall back).
   * `rows`: the rows expected in all, when known: every column gets room for them now.
   */
  private typeColumns(rows?: number): void {
    if (this.typedNumbers && !this.options.rawText) this.typeNumericColumns(rows);
    if (rows !== undefined) for (const b of this.builders) b?.reserve(rows);
  }

  private typeNumericColumns(rows: number | undefined): void {
    const names = this.names ?? [];
    for (let j = 0; j < names.length; j++) {
      const b = this.builders[j];
      if (b === undefined || names[j] === ID_COLUMN) continue;
      const dictionary = b.dictionary;
      const table = new Float64Array(dictionary.length);
      let numeric = true;
      for (let k = 0; k < dictionary.length && numeric; k++) {
        const v = parseNumber(dictionary[k]);
        if (v === undefined) numeric = false;
        else table[k] = v;
      }
      if (!numeric) continue;
      this.numbers[j] = NumericBuilder.fromCodes(b.finish(), table, b.missingCount, rows);
      this.builders[j] = undefined;
    }
  }

  /** Column j, read as numbers so far, met a cell that is not one: it continues dictionary-encoded
   * (its cells so far spelled as their numbers print: NumericBuilder.toDictionary). */
  private toDictionary(j: number): void {
    this.builders[j] = this.numbers[j]!.toDictionary();
    this.numbers[j] = undefined;
  }

  /** The record starting at the current line (at `fields.start`) has a malformed quoted field. */
  quoteError(code: string, fields: FieldSpans): never {
    throw quoteError(code, this.line, this.byteAt?.(fields.bytes ?? fields.text, fields.start));
  }

  /** Once per parsed piece: cheap, and over by at most one piece's cells (a cell takes a character). */
  checkSize(): void {
    const columns = this.builders.length;
    const idCells = this.names?.includes(ID_COLUMN) ? 0 : 1;
    if (this.rowCount * (columns + idCells) > this.maxCells) throw tooLargeError(this.rowCount, columns, this.maxCells, true);
  }

  /** The rows so far and the columns as they stand (the `onRows` report of ReadOptions). Codes of
   * a DictionaryBuilder never change; a numeric column that falls back to codes starts over. */
  rowsRead(): RowsRead {
    return {
      rows: this.rowCount,
      columns: () =>
        (this.names ?? []).map((name, j): ProvisionalColumn => {
          const num = this.numbers[j];
          return num ? { name, stores: "values", data: num.valuesSoFar() } : { name, stores: "codes", data: this.builders[j]!.codesSoFar() };
        }),
    };
  }

  /** The columns, inferred from their distinct values (or kept as strings with rawText); the
   * file's `id` column is validated.
   * Each builder is dropped as soon as its column is built: a numeric column's codes are then
   * garbage, so codes and values of all columns are never alive at once (peak memory). */
  finish(): Column[] {
    const names = this.names ?? [];
    const builders = this.builders;
    const numbers = this.numbers;
    this.builders = [];
    this.numbers = [];
    this.batches = [];
    return names.map((name, j) => {
      const num = numbers[j];
      if (num !== undefined) {
        numbers[j] = undefined;
        return inferNumericValues(name, num.finish(), num.missingCount);
      }
      const b = builders[j]!;
      builders[j] = undefined;
      const codes = b.finish();
      if (name === ID_COLUMN) return keptIdFromStrings(b.dictionary, codes, this.rowCount);
      if (this.options.rawText) return { name, kind: "categorical", storage: "dictionary", codes, dictionary: b.dictionary };
      return inferColumn(name, b.dictionary, codes, b.missingCount, this.rowCount);
    });
  }

  private start(header: string[]): void {
    if (header[0]?.charCodeAt(0) === 0xfeff) header[0] = header[0].slice(1);
    this.names = validateHeader(header, "file", this.options.rawText ? 1 : undefined);
    this.builders = this.names.map(() => new DictionaryBuilder(1024));
    this.numbers = this.names.map(() => undefined);
  }

  private breaksIn(fields: string[]): number {
    let n = 0;
    for (const f of fields) for (let i = f.indexOf(this.lineChar); i >= 0; i = f.indexOf(this.lineChar, i + 1)) n++;
    return n;
  }
}

/** Where a bad record starts in the file, when known. */
const atByte = (byte: number | undefined) => (byte === undefined ? "" : ` (the record starts at byte ${byte})`);

function raggedError(line: number, got: number, want: number, byte?: number): IngestError {
  return new IngestError(
    "ragged_row",
    `Line ${line} has ${got} field${got === 1 ? "" : "s"} but the header has ${want} columns${atByte(byte)}. Check that line for an extra or missing delimiter, or a value containing the delimiter that is not quoted.`,
  );
}

function quoteError(code: string, line: number, byte?: number): IngestError {
  const what =
    code === "MissingQuotes"
      ? `a quoted field starting on or before line ${line} is never closed (a missing closing quote)`
      : `a quoted field on line ${line} has characters between its closing quote and the next delimiter`;
  return new IngestError("bad_quotes", `The CSV is malformed: ${what}${atByte(byte)}. Quotes inside a quoted field must be doubled ("").`);
}
