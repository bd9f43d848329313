import type { Frame } from "../ml/frame";

/** What a reader hands back: the frame (row-id column first) and how the file was read. */
export interface IngestResult {
  frame: Frame;
  format: "csv" | "parquet";
  /** The delimiter used (CSV only). */
  delimiter?: string;
  /** True when the `id` column was generated (0..n-1), false when the file's own was kept. */
  idGenerated: boolean;
  /** Bytes read from the input. */
  bytes: number;
}

/**
 * One column of a reader as it stands while the file is read: its values so far, or its codes
 * (-1 = missing). The reader guarantees that the first `RowsRead.rows` entries never change as
 * long as the column keeps storing the same of the two (one that switches starts over), and that
 * codes are final: the finished column is a dictionary column with these very codes, or a
 * numeric one whose values are a function of them. ./streamed-frame relies on it: it matches the
 * finished column against the reader's array, not against the rows it sent.
 */
export type ProvisionalColumn = { name: string; stores: "values"; data: Float64Array } | { name: string; stores: "codes"; data: Int32Array };

/** A reader's progress in rows, with its columns so far (those with no array yet left out). */
export interface RowsRead {
  rows: number;
  columns(): ProvisionalColumn[];
}

/** Options shared by both readers. */
export interface ReadOptions {
  /** Cell budget (rows × columns, counting the row id); default MAX_FRAME_CELLS. */
  maxCells?: number;
  /** Every column except `id` as its normalized strings (trimmed, missing markers missing), kind
   * "categorical", without type inference: for inference files, whose columns the featurizer
   * interprets itself so that a column inferred differently cannot break its mapping. */
  rawText?: boolean;
  /**
   * Called as rows are read (after each parsed piece of CSV, each Parquet row group streamed) and
   * once with `final` before the frame is built, with the columns so far: a frame can be stored
   * meanwhile (./streamed-frame). A Parquet file read whole (in memory) does not report: its frame
   * is then sent at the end. Awaited: a slow receiver holds the read back.
   */
  onRows?: (read: RowsRead, final: boolean) => Promise<void> | void;
}

export interface ReadCsvOptions extends ReadOptions {
  /** Force a delimiter instead of detecting one of , ; tab |. */
  delimiter?: string;
  /** The file's size in bytes, when the caller knows it (the trainer does): the column arrays are
   * then sized once for the rows the file should hold, from the sample's bytes per record, instead
   * of doubling as rows arrive (each doubling copies the column and its garbage costs full GCs).
   * Only a hint: the frame is the same whatever it says. */
  fileBytes?: number;
}
