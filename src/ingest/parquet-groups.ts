/**
 * The row-group decoder both Parquet readers share: the whole-buffer one (./parquet, a file
 * already in memory) and the streamed one (./parquet-stream, a file decoded row group by row group
 * as its bytes arrive). From the footer's metadata: the checks made before anything is allocated
 * per row (header, codecs, cell budget), the frame's columns, then each row group's flat column
 * chunks decoded from whatever buffer holds their bytes, and the frame.
 */
import type { ColumnChunk, Compressors, FileMetaData, SchemaTree } from "hyparquet";
import { parquetSchema } from "hyparquet";
import { MAX_FRAME_CELLS } from "../core/limits";
import { ByteStrings } from "./byte-strings";
import { IngestError, tooLargeError } from "./errors";
import { validateHeader } from "./header";
import { ID_COLUMN, withRowIds } from "./ids";
import { chunkStart, columnDecoder, isTextColumn, readColumnChunk } from "./parquet-chunk";
import { ParquetColumn } from "./parquet-column";
import type { IngestResult, ReadOptions, RowsRead } from "./types";

export interface ReadParquetOptions extends ReadOptions {
  /** Extra page decompressors by codec name (hyparquet reads UNCOMPRESSED and SNAPPY itself):
   * `portableCompressors` (ZSTD, GZIP; Worker and Node) or, in Node only, `nodeCompressors`. */
  compressors?: Compressors;
}

const BUILT_IN_CODECS = new Set(["UNCOMPRESSED", "SNAPPY"]);

/** What a file's footer says the frame will be, checked; its columns allocated. */
export interface ParquetPlan {
  metadata: FileMetaData;
  rows: number;
  /** By the file's column name (the frame's name may differ: header validation renames). */
  columns: Map<string, ParquetColumn>;
  /** Top-level lists, maps and structs: hyparquet assembles them (./parquet readNestedColumns). */
  nested: string[];
}

export function planParquet(metadata: FileMetaData, options: ReadParquetOptions): ParquetPlan {
  const top = parquetSchema(metadata).children;
  const names = validateHeader(
    top.map((c) => c.element.name),
    "Parquet file",
    options.rawText ? 1 : undefined,
  );
  const rows = Number(metadata.num_rows);
  if (rows === 0) throw new IngestError("no_data_rows", `The Parquet file has ${names.length} columns but no rows.`);
  checkCodecs(metadata, options.compressors);
  // Before allocating anything per row: the footer's row count is all a column's storage costs.
  const maxCells = options.maxCells ?? MAX_FRAME_CELLS;
  if (rows * (names.length + (names.includes(ID_COLUMN) ? 0 : 1)) > maxCells) throw tooLargeError(rows, names.length, maxCells);
  const raw = (name: string) => options.rawText === true && name !== ID_COLUMN;
  const columns = new Map(names.map((n, i) => [top[i].element.name, new ParquetColumn(n, rows, raw(n))]));
  const nested = top.filter((c) => !isFlat(c)).map((c) => c.element.name);
  return { metadata, rows, columns, nested };
}

/** The columns with rows [0, rows) read (the `onRows` report): row groups are read in order. */
export function rowsRead(plan: ParquetPlan, rows: number): RowsRead {
  return { rows, columns: () => [...plan.columns.values()].flatMap((c) => c.soFar(rows) ?? []) };
}

/** The frame, once every row group (and nested column) is in. */
export function finishParquet(plan: ParquetPlan, bytes: number): IngestResult {
  const frameColumns = [...plan.columns.values()].map((c) => c.finish());
  const withIds = withRowIds(frameColumns, plan.rows);
  return { frame: { rowCount: plan.rows, columns: withIds.columns }, format: "parquet", idGenerated: withIds.idGenerated, bytes };
}

/**
 * Decodes the flat columns' chunks of each row group, page by page into their columns (memory
 * beyond the frame's storage: one page at a time), from a buffer holding at least the group's
 * bytes. Row groups are decoded in order, each once.
 */
export class RowGroupDecoder {
  private readonly tree: SchemaTree;
  private readonly nodes: Map<string, SchemaTree>;
  /** Per text column, from row group to row group. */
  private readonly strings = new Map<string, ByteStrings>();
  /** Per row group, its first row in the frame. */
  private readonly groupStarts: number[] = [];

  constructor(
    private readonly plan: ParquetPlan,
    private readonly compressors: Compressors | undefined,
  ) {
    this.tree = parquetSchema(plan.metadata);
    this.nodes = new Map(this.tree.children.map((c) => [c.element.name, c]));
    let start = 0;
    for (const group of plan.metadata.row_groups) {
      this.groupStarts.push(start);
      start += Number(group.num_rows);
    }
  }

  /** Row group `g`'s chunks of flat columns (the others are read by hyparquet or not at all). */
  flatChunks(g: number): ColumnChunk[] {
    return this.plan.metadata.row_groups[g].columns.filter((chunk) => {
      const path = chunk.meta_data?.path_in_schema ?? [];
      const node = this.nodes.get(path[0]);
      return node !== undefined && this.plan.columns.has(path[0]) && path.length === 1 && isFlat(node);
    });
  }

  /** One of flatChunks(g), from `bytes`, the file's bytes from byte `offset` on. */
  decodeChunk(g: number, chunk: ColumnChunk, bytes: Uint8Array, offset: number): void {
    const { row_groups } = this.plan.metadata;
    const name = chunk.meta_data!.path_in_schema[0];
    try {
      const decoder = columnDecoder(chunk, [this.tree, this.nodes.get(name)!], this.compressors);
      if (isTextColumn(decoder) && !this.strings.has(name)) this.strings.set(name, new ByteStrings());
      const column = this.plan.columns.get(name)!;
      readColumnChunk(bytes, offset, chunk, decoder, this.groupStarts[g], Number(row_groups[g].num_rows), column, this.strings.get(name));
    } catch (e) {
      throw e instanceof IngestError ? e : corruptChunk(e, name, g, row_groups.length, chunk.meta_data);
    }
  }
}

/**
 * Where each row group's column chunks lie in the file, [start, end) (clamped to the file's
 * `size`: a chunk the footer places past the end is reported by the decoder); undefined unless
 * the groups follow one another in ascending byte order, as writers lay them out.
 */
export function groupSpans(metadata: FileMetaData, size: number): { start: number; end: number }[] | undefined {
  const spans: { start: number; end: number }[] = [];
  let last = 0;
  for (const group of metadata.row_groups) {
    let start = Number.POSITIVE_INFINITY;
    let end = last;
    for (const chunk of group.columns) {
      const meta = chunk.meta_data;
      if (!meta) continue; // not decoded (flatChunks skips it)
      const s = chunkStart(meta);
      const e = s + Number(meta.total_compressed_size);
      if (!Number.isSafeInteger(s) || !Number.isSafeInteger(e) || s < 0 || e < s) return undefined;
      start = Math.min(start, s);
      end = Math.max(end, e);
    }
    if (start === Number.POSITIVE_INFINITY) start = last;
    if (start < last) return undefined;
    spans.push({ start: Math.min(start, size), end: Math.min(end, size) });
    last = end;
  }
  return spans;
}

/** A top-level column that is a plain leaf (not a list, map or struct). */
export function isFlat(c: SchemaTree): boolean {
  return c.children.length === 0 && c.element.repetition_type !== "REPEATED";
}

/** A chunk that fails to decode, named: its column, its row group and where its bytes are in the file. */
function corruptChunk(e: unknown, column: string, group: number, groups: number, meta: ColumnChunk["meta_data"]): IngestError {
  const start = meta ? Number(meta.dictionary_page_offset ?? meta.data_page_offset) : undefined;
  const where = meta && start !== undefined ? `, bytes ${start}–${start + Number(meta.total_compressed_size)}` : "";
  const detail = e instanceof Error ? e.message.replace(/^parquet\s*/i, "") : String(e);
  return new IngestError(
    "corrupt_parquet",
    `The Parquet file could not be read: column '${column}', row group ${group + 1} of ${groups}${where} (${detail}); it may be corrupt or truncated.`,
  );
}

function checkCodecs(metadata: FileMetaData, compressors: Compressors | undefined): void {
  for (const group of metadata.row_groups) {
    for (const chunk of group.columns) {
      const codec = chunk.meta_data?.codec;
      if (codec && !BUILT_IN_CODECS.has(codec) && !compressors?.[codec]) {
        throw new IngestError(
          "unsupported_parquet",
          `The Parquet file is compressed with ${codec}, which cannot be read here. Re-export it with Snappy compression (or none), or upload a CSV.`,
        );
      }
    }
  }
}
