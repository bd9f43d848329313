/**
 * The one error type of ingestion. Its message becomes the failed job's `error_message`, so it is
 * written for the person who uploaded the file: what is wrong, where, and what to do about it.
 * Anything else thrown out of the readers is a bug or an infrastructure fault, not bad input.
 */
import { MAX_FRAME_CELLS } from "../core/limits";

export class IngestError extends Error {
  /** A stable machine-readable reason, for logs and tests; the message is for humans. */
  readonly code: IngestErrorCode;

  constructor(code: IngestErrorCode, message: string) {
    super(message);
    this.name = "IngestError";
    this.code = code;
  }
}

export type IngestErrorCode =
  | "empty_file"
  | "no_data_rows"
  | "unsupported_format"
  | "corrupt_parquet"
  | "unsupported_parquet"
  | "invalid_utf8"
  | "ragged_row"
  | "bad_quotes"
  | "row_too_long"
  | "duplicate_columns"
  | "empty_column_name"
  | "too_few_columns"
  | "too_many_columns"
  | "bad_id_column"
  | "column_mismatch"
  | "too_large";

const count = (n: number) => n.toLocaleString("en-US");

/** A table over the cell budget (see MAX_FRAME_CELLS). `atLeast`: counted while parsing, so the
 * file may hold more rows than that. */
export function tooLargeError(rows: number, columns: number, maxCells: number, atLeast = false): IngestError {
  return new IngestError(
    "too_large",
    `The file has ${atLeast ? "at least " : ""}${count(rows)} rows × ${count(columns)} columns; at most ${count(maxCells)} cells (rows × columns, counting the row id) can be read in one ingest${maxCells === MAX_FRAME_CELLS ? " without the trainer container (this deployment has none)" : ""}; split the table into several datasets.`,
  );
}
