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

/** Options shared by both readers. */
export interface ReadOptions {
  /** Cell budget (rows × columns, counting the row id); default MAX_FRAME_CELLS. */
  maxCells?: number;
  /** Every column except `id` as its normalized strings (trimmed, missing markers missing), kind
   * "categorical", without type inference: for inference files, whose columns the featurizer
   * interprets itself so that a column inferred differently cannot break its mapping. */
  rawText?: boolean;
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
