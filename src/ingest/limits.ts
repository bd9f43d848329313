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
