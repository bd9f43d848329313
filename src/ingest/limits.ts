/** Limits that bound memory and reject files that cannot be a useful table. */

/** A file must have at least this many columns (the generated `id` is not counted). A single
 * column is almost always a delimiter we did not recognise, and no model type can do anything
 * useful with one column plus a row id: prediction needs a label and a feature. */
export const MIN_COLUMNS = 2;

/** Wider tables are refused: the per-column builders and the profile are sized per column, and a
 * file this wide is almost always a transposed table or a bad delimiter. */
export const MAX_COLUMNS = 2000;

/** One CSV record may not exceed this many characters. An unclosed quote would otherwise make
 * the rest of the file one record held in memory (the Worker has 128 MB). */
export const MAX_RECORD_CHARS = 8 * 1024 * 1024;

/** Text is handed to papaparse in pieces of about this many characters. */
export const PARSE_CHUNK_CHARS = 256 * 1024;

/** At most this many cells (rows × columns, counting the row id) per frame. Numeric storage costs
 * 8 bytes a cell, so this is ≈ 80 MB of frame, about what the Worker's 128 MB holds next to the
 * file's bytes and the reader's transient buffers. File size does not bound it: a 30 MB Parquet
 * file can declare tens of millions of rows (an all-null column is nearly free on disk). Readers
 * take a larger budget as an option where there is more memory (the trainer container). */
export const MAX_FRAME_CELLS = 10_000_000;
