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

export interface ReadCsvOptions {
  /** Force a delimiter instead of detecting one of , ; tab |. */
  delimiter?: string;
}
