/**
 * A batch inference cut into parts: contiguous row ranges run apart (by several trainer
 * instances, ../container/batch-parts) and put together in order into exactly the results one
 * runner would have stored. Each part stores its own JSON pages (a part is a whole number of
 * pages) and hands back its csv rows and its table; csv rows are independent, so the parts' csv
 * joined is the whole table's; the Parquet file is encoded once from the joined table (its column
 * types and row groups depend on the whole).
 */
import { BATCH_PART_ROWS, RESULT_PAGE_ROWS } from "../core/limits";
import type { Cell, ParquetColumnType, ResultTable } from "../model-types/contract";
import type { InferredRows } from "./batch-run";
import { encodeTable, OUTPUT_CONTENT_TYPES } from "./output";
import { type ResultSink, type StoredResults, summarizeResults } from "./results";

export interface RowRange {
  start: number;
  end: number;
}

/**
 * Rows [0, rows) as contiguous ranges for `instances` instances: as many parts as instances when
 * that keeps them within `maxPartRows` rows, else parts of `maxPartRows` (the last one shorter);
 * every part starts a result page.
 */
export function cutIntoParts(rows: number, instances: number, maxPartRows = BATCH_PART_ROWS): RowRange[] {
  const perInstance = Math.ceil(rows / Math.max(1, instances) / RESULT_PAGE_ROWS) * RESULT_PAGE_ROWS;
  const partRows = Math.min(maxPartRows, Math.max(RESULT_PAGE_ROWS, perInstance));
  if (partRows % RESULT_PAGE_ROWS !== 0) throw new RangeError(`a part of ${partRows} rows would not start a result page`);
  const parts: RowRange[] = [];
  for (let start = 0; start < rows; start += partRows) parts.push({ start, end: Math.min(rows, start + partRows) });
  return parts;
}

/** What a part hands back: its rows' answer and their csv (with the header row for the first part only). */
export interface PartResult extends InferredRows {
  csv: string;
}

export function partResult(rows: InferredRows, range: RowRange): PartResult {
  const csv = encodeTable(rows.table, "csv", { columnTypes: rows.columnTypes, csvHeader: range.start === 0 }).body as string;
  return { ...rows, csv };
}

/** A part's result as bytes: the length of its JSON (table and column types), the JSON, then its csv. */
export function encodePartResult(r: PartResult): Uint8Array {
  const utf8 = new TextEncoder();
  const json = utf8.encode(JSON.stringify({ table: r.table, column_types: r.columnTypes }));
  const csv = utf8.encode(r.csv);
  const out = new Uint8Array(4 + json.byteLength + csv.byteLength);
  new DataView(out.buffer).setUint32(0, json.byteLength, true);
  out.set(json, 4);
  out.set(csv, 4 + json.byteLength);
  return out;
}

export function decodePartResult(bytes: Uint8Array): PartResult {
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  const utf8 = new TextDecoder();
  const { table, column_types } = JSON.parse(utf8.decode(bytes.subarray(4, 4 + length))) as {
    table: ResultTable;
    column_types: Record<string, ParquetColumnType>;
  };
  return { table, columnTypes: column_types, csv: utf8.decode(bytes.subarray(4 + length)) };
}

/** The parts, in row order, as one table and its csv (CRLF between records, as the whole table's). */
export function joinParts(parts: PartResult[]): PartResult {
  const table: ResultTable = {};
  for (const part of parts) {
    for (const [name, values] of Object.entries(part.table)) {
      const column: Cell[] = table[name] ?? (table[name] = []);
      for (const v of values) column.push(v);
    }
  }
  return { table, columnTypes: parts.at(-1)?.columnTypes ?? {}, csv: parts.map((p) => p.csv).join("\r\n") };
}

/** The joined parts' csv and Parquet files stored (their pages are stored by the parts): what the job records. */
export async function storeJoinedFiles(sink: ResultSink, joined: PartResult): Promise<StoredResults> {
  const csv = new TextEncoder().encode(joined.csv);
  await sink.putFile("csv", csv, OUTPUT_CONTENT_TYPES.csv);
  const parquet = encodeTable(joined.table, "parquet", { columnTypes: joined.columnTypes }).body as Uint8Array;
  await sink.putFile("parquet", parquet, OUTPUT_CONTENT_TYPES.parquet);
  return { ...summarizeResults(joined.table, joined.columnTypes), bytes: { csv: csv.byteLength, parquet: parquet.byteLength } };
}
