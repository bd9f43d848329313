import { MAX_FRAME_CELLS } from "../core/limits";
import type { Column } from "../ml/frame";
import type { FieldSpans } from "./csv-tokenizer";
import { DictionaryBuilder, SPAN_CACHE_ENTRIES } from "./dictionary-builder";
import { IngestError, tooLargeError } from "./errors";
import { validateHeader } from "./header";
import { ID_COLUMN, keptIdFromStrings } from "./ids";
import { inferColumn } from "./infer";
import type { ReadOptions } from "./types";

interface PapaError {
  code: string;
  row?: number;
}

/**
 * Receives parsed records batch by batch, in file order: the first non-blank one is the header,
 * the rest are dictionary-encoded into one builder per column. Tracks physical line numbers
 * (records may span lines inside quotes) so errors can say where they are.
 */
export class CsvTable {
  names: string[] | undefined;
  rowCount = 0;
  /** Line number at which the next record starts (1-based). */
  line = 1;
  private builders: DictionaryBuilder[] = [];

  private readonly maxCells: number;

  constructor(
    private readonly lineChar: string,
    private readonly options: ReadOptions = {},
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
    if (count !== builders.length) throw raggedError(line, count, builders.length);
    const { text, starts, ends, hashes } = fields;
    for (let j = 0; j < count; j++) {
      const s = starts[j];
      if (s < 0) builders[j].push(fields.unescaped[j]);
      else builders[j].pushSpan(text, s, ends[j], hashes[j]);
    }
    this.rowCount++;
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
    for (let j = 0; j < fields.length; j++) this.builders[j].push(fields[j]);
    this.rowCount++;
  }

  /** The record starting at the current line has a malformed quoted field. */
  quoteError(code: string): never {
    throw quoteError(code, this.line);
  }

  /** Once per parsed piece: cheap, and over by at most one piece's cells (a cell takes a character). */
  checkSize(): void {
    const columns = this.builders.length;
    const idCells = this.names?.includes(ID_COLUMN) ? 0 : 1;
    if (this.rowCount * (columns + idCells) > this.maxCells) throw tooLargeError(this.rowCount, columns, this.maxCells, true);
  }

  /** The columns, inferred from their distinct values (or kept as strings with rawText); the
   * file's `id` column is validated.
   * Each builder is dropped as soon as its column is built: a numeric column's codes are then
   * garbage, so codes and values of all columns are never alive at once (peak memory). */
  finish(): Column[] {
    const names = this.names ?? [];
    const builders: Array<DictionaryBuilder | undefined> = this.builders;
    this.builders = [];
    return names.map((name, j) => {
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
    const spanBudget = { left: SPAN_CACHE_ENTRIES };
    this.builders = this.names.map(() => new DictionaryBuilder(1024, spanBudget));
  }

  private breaksIn(fields: string[]): number {
    let n = 0;
    for (const f of fields) for (let i = f.indexOf(this.lineChar); i >= 0; i = f.indexOf(this.lineChar, i + 1)) n++;
    return n;
  }
}

function raggedError(line: number, got: number, want: number): IngestError {
  return new IngestError(
    "ragged_row",
    `Line ${line} has ${got} field${got === 1 ? "" : "s"} but the header has ${want} columns. Check that line for an extra or missing delimiter, or a value containing the delimiter that is not quoted.`,
  );
}

function quoteError(code: string, line: number): IngestError {
  const what =
    code === "MissingQuotes"
      ? `a quoted field starting on or before line ${line} is never closed (a missing closing quote)`
      : `a quoted field on line ${line} has characters between its closing quote and the next delimiter`;
  return new IngestError("bad_quotes", `The CSV is malformed: ${what}. Quotes inside a quoted field must be doubled ("").`);
}
