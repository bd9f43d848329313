/**
 * An inference job's results in R2 (layout: ../storage/keys): written once when the job
 * succeeds, read by `GET /jobs/{id}/results`. JSON is paged so that a page of the answer reads at
 * most two stored pages; csv and parquet are whole files, streamed to the client. The writer goes
 * through a ResultSink: R2 directly in the Worker, the internal control routes in the trainer.
 */
import { RESULT_PAGE_ROWS, RESULT_PAGE_WRITES_IN_FLIGHT, RESULT_PAGES_PER_WRITE } from "../core/limits";
import type { Cell, ParquetColumnType, ResultTable } from "../model-types/contract";
import { resultFileKey, resultPageKey } from "../storage/keys";
import { type EncodedOutput, encodeTable } from "./output";

export interface StoredResults {
  rows: number;
  columns: string[];
  page_rows: number;
  /** Sizes of the whole-file forms that are stored; a missing one is encoded from the pages on request. */
  bytes: Partial<Record<"csv" | "parquet", number>>;
  /** Parquet types of the columns, for encoding a missing form later. */
  column_types: Record<string, ParquetColumnType>;
}

export interface StoreOptions {
  /** Whole-file forms to store (default both). */
  formats?: ("csv" | "parquet")[];
  /** A form already encoded (the sync response's own body): stored as is. */
  encoded?: { format: "csv" | "parquet"; output: EncodedOutput };
}

/** Where a job's result files go. */
export interface ResultSink {
  putPage(page: number, json: string): Promise<void>;
  /** Pages `first`, `first + 1`, … at once, when the sink can (a call for many: the trainer's control routes). */
  putPages?(first: number, pages: string[]): Promise<void>;
  putFile(format: "csv" | "parquet", body: Uint8Array, contentType: string): Promise<void>;
}

export function r2ResultSink(bucket: R2Bucket, orgId: string, jobId: string): ResultSink {
  return {
    putPage: async (page, json) => {
      await bucket.put(resultPageKey(orgId, jobId, page), json, { httpMetadata: { contentType: "application/json" } });
    },
    putFile: async (format, body, contentType) => {
      await bucket.put(resultFileKey(orgId, jobId, format), body, { httpMetadata: { contentType } });
    },
  };
}

export async function storeResults(
  sink: ResultSink,
  table: ResultTable,
  columnTypes: Record<string, ParquetColumnType>,
  opts: StoreOptions = {},
): Promise<StoredResults> {
  await storePages(sink, table);
  const bytes: StoredResults["bytes"] = {};
  for (const format of opts.formats ?? (["csv", "parquet"] as const)) {
    const encoded = opts.encoded?.format === format ? opts.encoded.output : encodeTable(table, format, { columnTypes });
    const body = typeof encoded.body === "string" ? new TextEncoder().encode(encoded.body) : encoded.body;
    bytes[format] = body.byteLength;
    await sink.putFile(format, body, encoded.contentType);
  }
  return { ...summarizeResults(table, columnTypes), bytes };
}

/**
 * The JSON pages of `table`, whose first row is row `firstPage * RESULT_PAGE_ROWS` of the job's
 * results (a part of a batch cut into row ranges stores its own pages; a part starts a page).
 */
export async function storePages(sink: ResultSink, table: ResultTable, firstPage = 0): Promise<void> {
  const columns = Object.keys(table);
  const rows = table[columns[0]]?.length ?? 0;
  const pages = Math.max(1, Math.ceil(rows / RESULT_PAGE_ROWS));
  const pageJson = (p: number) => {
    const page: ResultTable = {};
    for (const c of columns) page[c] = table[c].slice(p * RESULT_PAGE_ROWS, (p + 1) * RESULT_PAGE_ROWS);
    return JSON.stringify(page);
  };
  // pages in groups when the sink takes many at once, else one by one
  const group = sink.putPages ? RESULT_PAGES_PER_WRITE : 1;
  const write = (p: number, n: number) =>
    sink.putPages
      ? sink.putPages(
          firstPage + p,
          Array.from({ length: n }, (_, i) => pageJson(p + i)),
        )
      : sink.putPage(firstPage + p, pageJson(p));
  // a few writes in flight: each is a round trip (an R2 write, or a control route's), not work
  let next = 0;
  let failed = false;
  const writer = async () => {
    for (let p = next; p < pages && !failed; p = next) {
      next += group;
      await write(p, Math.min(group, pages - p)).catch((e) => {
        failed = true;
        throw e;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(RESULT_PAGE_WRITES_IN_FLIGHT, Math.ceil(pages / group)) }, writer));
}

/** What a job records about results that are kept elsewhere (inline in D1: no files, no pages). */
export function summarizeResults(table: ResultTable, columnTypes: Record<string, ParquetColumnType>): StoredResults {
  const columns = Object.keys(table);
  const rows = table[columns[0]]?.length ?? 0;
  return { rows, columns, page_rows: RESULT_PAGE_ROWS, bytes: {}, column_types: columnTypes };
}

export function writeResults(
  bucket: R2Bucket,
  orgId: string,
  jobId: string,
  table: ResultTable,
  columnTypes: Record<string, ParquetColumnType>,
  opts: StoreOptions = {},
): Promise<StoredResults> {
  return storeResults(r2ResultSink(bucket, orgId, jobId), table, columnTypes, opts);
}

/** Rows [offset, offset + limit) of the stored results, column by column. */
export async function readResultRows(
  bucket: R2Bucket,
  orgId: string,
  jobId: string,
  stored: StoredResults,
  offset: number,
  limit: number,
): Promise<ResultTable | null> {
  const end = Math.min(stored.rows, offset + limit);
  const out: ResultTable = Object.fromEntries(stored.columns.map((c) => [c, [] as Cell[]]));
  for (let p = Math.floor(offset / stored.page_rows); p * stored.page_rows < end; p++) {
    const obj = await bucket.get(resultPageKey(orgId, jobId, p));
    if (!obj) return null;
    const page = (await obj.json()) as ResultTable;
    const from = Math.max(0, offset - p * stored.page_rows);
    const to = Math.min(stored.page_rows, end - p * stored.page_rows);
    for (const c of stored.columns) out[c].push(...(page[c] ?? []).slice(from, to));
  }
  return out;
}

/** The stored csv or parquet file, for streaming. */
export function readResultFile(bucket: R2Bucket, orgId: string, jobId: string, format: "csv" | "parquet") {
  return bucket.get(resultFileKey(orgId, jobId, format));
}
