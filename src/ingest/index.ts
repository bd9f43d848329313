/** File ingestion: detect the format, read CSV or Parquet into a Frame, profile it, store it. */
export { detectFormat, type FileFormat } from "./detect";
export { readCsv } from "./csv";
export { readParquet, type ReadParquetOptions } from "./parquet";
export { profileFrame, profileColumn, type ColumnProfile } from "./profile";
export { encodeFrame, decodeFrame, frameChunks } from "./codec";
export { sliceRows, rowIndexesForIds, type CellValue } from "./rows";
export { IngestError, type IngestErrorCode } from "./errors";
export { MISSING_MARKERS } from "./values";
export { MAX_COLUMNS, MIN_COLUMNS } from "./limits";
export { ID_COLUMN } from "./ids";
export type { IngestResult, ReadCsvOptions } from "./types";
