import type { Column, DictionaryColumn, Frame, NumericColumn } from "../ml/frame";
import {
  type ColumnEncoding,
  decodeCodes,
  decodeValues,
  encodeCodes,
  encodeValues,
  type StoredBuffer,
  storedLength,
  validEncoding,
} from "./column-encoding";
import { type LazyColumns, putColumnArray } from "./lazy-columns";

/**
 * Version 4 of the stored frame (codec.ts has versions 1–3): every column a list of row segments
 * and the column table at the END, so that a frame can be written while its file is still being
 * read — segments go out as rows are read, and what is only known at the end (row count, kinds,
 * dictionaries) follows them:
 *
 *   0   "TMLF" magic
 *   4   u32 version 4
 *   8   8 zero bytes
 *   16  buffers, each at a multiple of 8 from the start: a segment is rows [r, r + rows) of one
 *       column, raw or encoded as in version 3 (column-encoding.ts), each segment with its own
 *       encoding; a table is Float64 values, one per dictionary code
 *   F   footer, JSON: { rowCount, columns: [SegmentedColumn] }, offsets from the frame's start
 *   end u32 footer byte length, then "TMLF" again (the last 8 bytes)
 *
 * A column stores either values (Float64) or codes (Int32, -1 = missing). A numeric column may be
 * stored as codes plus a table (value of code c = table[c], missing for -1): what a text column
 * that turned out boolean, numeric or datetime was while it was read. A boolean column's per-row
 * spellings are its own codes (`spellings` without segments) or segments of their own.
 * Segments written and then superseded (a column read as numbers that turned to text) stay in the
 * file as dead bytes; only the footer's segments are read.
 */
const MAGIC = [0x54, 0x4d, 0x4c, 0x46]; // "TMLF"
export const SEGMENTED_VERSION = 4;
const PREFIX = 16;
const TRAILER = 8;

export type Stores = "values" | "codes";
export type SegmentData = Float64Array | Int32Array;

interface Segment {
  rows: number;
  offset: number;
  byteLength: number;
  encoding?: ColumnEncoding;
}

interface SegmentedColumn {
  name: string;
  kind: Column["kind"];
  storage: Column["storage"];
  stores: Stores;
  segments: Segment[];
  dictionary?: string[];
  /** A numeric column stored as codes: its values by code, `count` Float64 at `offset`. */
  table?: { offset: number; count: number };
  booleanLabels?: [string, string];
  dateOnly?: boolean;
  /** Per-row spellings of a boolean column: its own codes (no segments), or segments of codes. */
  spellings?: { dictionary: string[]; segments?: Segment[] };
}

/** How the writer lays out one column of the frame, given at the end: its kind and dictionaries,
 * and which appended streams hold its rows (see SegmentedFrameWriter.append). */
export interface ColumnPlan {
  name: string;
  kind: Column["kind"];
  storage: Column["storage"];
  /** The stream (append's key) holding the column's values or codes. */
  stream: string;
  dictionary?: string[];
  table?: Float64Array;
  booleanLabels?: [string, string];
  dateOnly?: boolean;
  /** `stream` undefined: the spellings are the column's own codes. */
  spellings?: { dictionary: string[]; stream?: string };
}

const align8 = (n: number) => (n + 7) & ~7;
const ZEROS = new Uint8Array(8);

/**
 * Writes a version-4 frame as consecutive byte pieces handed to `emit` (in order; the caller
 * stores them as they come). Rows are appended per stream (a column's values or codes, or a
 * boolean column's separate spellings) in row order; `finish` writes the footer from the plans.
 */
export class SegmentedFrameWriter {
  private at = 0;
  private readonly streams = new Map<string, { stores: Stores; rows: number; segments: Segment[] }>();

  constructor(private readonly emit: (bytes: Uint8Array) => void) {
    const head = new Uint8Array(PREFIX);
    head.set(MAGIC, 0);
    new DataView(head.buffer).setUint32(4, SEGMENTED_VERSION, true);
    this.put(head);
  }

  /** Bytes emitted so far. */
  get byteLength(): number {
    return this.at;
  }

  /**
   * Rows [from, from + data.length) of stream `key`, encoded here. `from` 0 starts the stream
   * over (its earlier segments are dropped); otherwise it must continue where the stream ended.
   * The encoded bytes may be a view of `data`, which the writer then owns.
   */
  append(key: string, stores: Stores, data: SegmentData, from: number): void {
    let stream = this.streams.get(key);
    if (from === 0 || !stream) {
      if (from !== 0) throw new Error(`segmented frame: stream "${key}" starts at row ${from}, not 0`);
      stream = { stores, rows: 0, segments: [] };
      this.streams.set(key, stream);
    }
    if (stream.stores !== stores || stream.rows !== from) {
      throw new Error(`segmented frame: stream "${key}" holds ${stream.stores} up to row ${stream.rows}; got ${stores} from row ${from}`);
    }
    if (data.length === 0) return;
    const stored: StoredBuffer = stores === "values" ? encodeValues(data as Float64Array) : encodeCodes(data as Int32Array);
    const segment: Segment = { rows: data.length, offset: this.place(stored.bytes), byteLength: stored.bytes.byteLength };
    if (stored.encoding) segment.encoding = stored.encoding;
    stream.segments.push(segment);
    stream.rows += data.length;
  }

  /** The footer and trailer; the frame's total byte length. Every plan's streams must hold `rowCount` rows. */
  finish(rowCount: number, plans: ColumnPlan[]): number {
    const segmentsOf = (key: string, stores: Stores): Segment[] => {
      const s = this.streams.get(key) ?? { stores, rows: 0, segments: [] };
      if (s.rows !== rowCount || s.stores !== stores) {
        throw new Error(`segmented frame: stream "${key}" holds ${s.rows} rows of ${s.stores}, not ${rowCount} of ${stores}`);
      }
      return s.segments;
    };
    const columns = plans.map((p): SegmentedColumn => {
      const stores: Stores = p.storage === "dictionary" || p.table ? "codes" : "values";
      const c: SegmentedColumn = { name: p.name, kind: p.kind, storage: p.storage, stores, segments: segmentsOf(p.stream, stores) };
      if (p.dictionary) c.dictionary = p.dictionary;
      if (p.table) {
        const t = p.table;
        c.table = { offset: this.place(new Uint8Array(t.buffer, t.byteOffset, t.byteLength)), count: t.length };
      }
      if (p.booleanLabels) c.booleanLabels = p.booleanLabels;
      if (p.dateOnly) c.dateOnly = true;
      if (p.spellings) {
        c.spellings = { dictionary: p.spellings.dictionary };
        if (p.spellings.stream !== undefined) c.spellings.segments = segmentsOf(p.spellings.stream, "codes");
        else if (stores !== "codes") throw new Error(`segmented frame: column "${p.name}" has no codes to be its spellings`);
      }
      return c;
    });
    const json = new TextEncoder().encode(JSON.stringify({ rowCount, columns }));
    this.put(json);
    const trailer = new Uint8Array(TRAILER);
    new DataView(trailer.buffer).setUint32(0, json.byteLength, true);
    trailer.set(MAGIC, 4);
    this.put(trailer);
    return this.at;
  }

  /** Emits `bytes` at the next multiple of 8; where they start. */
  private place(bytes: Uint8Array): number {
    const pad = align8(this.at) - this.at;
    if (pad > 0) this.put(ZEROS.subarray(0, pad));
    const at = this.at;
    if (bytes.byteLength > 0) this.put(bytes);
    return at;
  }

  private put(bytes: Uint8Array): void {
    this.emit(bytes);
    this.at += bytes.byteLength;
  }
}

/** A version-4 frame from its bytes (8-byte aligned: decodeFrame sees to it). Every buffer is
 * checked to lie inside the data with its encoding's length, and segments to cover the rows.
 * With `lazy`, each column is widened when it is read (./lazy-columns); the checks come first all
 * the same, except for a table-coded column's codes past its table, found as it is widened. */
export function decodeSegmentedFrame(bytes: Uint8Array, lazy: LazyColumns | null = null): Frame {
  const fail = (why: string): never => {
    throw new Error(`decodeFrame: ${why}`);
  };
  if (bytes.length < PREFIX + TRAILER || !MAGIC.every((b, i) => bytes[bytes.length - 4 + i] === b)) fail("truncated frame (no trailer)");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const footerLength = view.getUint32(bytes.length - TRAILER, true);
  const footerStart = bytes.length - TRAILER - footerLength;
  if (footerStart < PREFIX) fail("truncated footer");
  let footer: { rowCount: number; columns: SegmentedColumn[] } | undefined;
  try {
    footer = JSON.parse(new TextDecoder().decode(bytes.subarray(footerStart, footerStart + footerLength)));
  } catch {
    fail("malformed footer (not JSON)");
  }
  if (!isObject(footer) || !Array.isArray(footer.columns) || !footer.columns.every(isObject)) fail("malformed footer");
  const rows = footer!.rowCount;
  if (!Number.isSafeInteger(rows) || rows < 0) fail("malformed footer");

  /** The bytes of a buffer of `length` at `offset`, inside the data section. */
  const inside = (what: string, offset: number, length: number): Uint8Array => {
    const ok = Number.isSafeInteger(offset) && offset >= PREFIX && offset % 8 === 0 && offset + length <= footerStart;
    if (!ok) fail(`${what} lies outside the data or has the wrong length`);
    return bytes.subarray(offset, offset + length);
  };
  /** The segments of `what`, checked, and a function decoding them into one array of `rows` rows. */
  const checkSegments = (what: string, segments: Segment[], stores: Stores): (() => SegmentData) => {
    const storage = stores === "values" ? "numeric" : "dictionary";
    if (!Array.isArray(segments) || !segments.every(isObject)) fail(`${what} has no segments`);
    let at = 0;
    const checked = segments.map((s) => {
      if (!Number.isSafeInteger(s.rows) || s.rows <= 0 || at + s.rows > rows) fail(`${what} has segments beyond its ${rows} rows`);
      if (s.encoding !== undefined && !validEncoding(s.encoding, storage, 3)) fail(`${what} has an unknown encoding ${JSON.stringify(s.encoding)}`);
      const length = storedLength(s.encoding, stores === "values" ? 8 : 4, s.rows);
      if (s.byteLength !== length) fail(`${what} lies outside the data or has the wrong length`);
      at += s.rows;
      return { ...s, bytes: inside(what, s.offset, length) };
    });
    if (at !== rows) fail(`${what} has segments for ${at} of its ${rows} rows`);
    const decode = () => {
      const out = stores === "values" ? new Float64Array(rows) : new Int32Array(rows);
      let to = 0;
      for (const { encoding, bytes: b, rows: n } of checked) {
        if (encoding && stores === "values") decodeValues(encoding, b, n, out as Float64Array, to);
        else if (encoding) decodeCodes(encoding, b, n, out as Int32Array, to);
        else if (stores === "values") out.set(new Float64Array(b.buffer, b.byteOffset, n), to);
        else out.set(new Int32Array(b.buffer, b.byteOffset, n), to);
        to += n;
      }
      return out;
    };
    if (lazy) return decode;
    // eager: decoded once, here (a boolean column's spellings may share its codes' array)
    const out = decode();
    return () => out;
  };
  const put = (target: object, prop: string, decode: () => SegmentData) => putColumnArray(lazy, target, prop, decode);

  const columns = footer!.columns.map((h): Column => {
    const what = `column "${h.name}"`;
    if (h.stores !== "values" && h.stores !== "codes") fail(`${what} stores ${JSON.stringify(h.stores)}`);
    const data = checkSegments(what, h.segments, h.stores);
    if (h.storage === "dictionary") {
      if (h.stores !== "codes") fail(`${what} is a dictionary column without codes`);
      const col = { name: h.name, kind: h.kind as "categorical", storage: "dictionary" } as DictionaryColumn;
      put(col, "codes", data);
      col.dictionary = h.dictionary ?? [];
      return col;
    }
    if (h.storage !== "numeric") fail(`${what} has an unknown storage`);
    let values: () => Float64Array;
    if (h.stores === "values") values = data as () => Float64Array;
    else {
      const t = h.table ?? fail(`${what} stores codes without a table`);
      const tb = inside(
        `the table of ${what}`,
        t.offset,
        8 * (Number.isSafeInteger(t.count) && t.count >= 0 ? t.count : fail(`${what} has a bad table`)),
      );
      const viaTable = () => valuesOf(data() as Int32Array, new Float64Array(tb.buffer, tb.byteOffset, t.count), what);
      // eager: the codes are checked against the table now, as before
      const eager = lazy ? null : viaTable();
      values = eager ? () => eager : viaTable;
    }
    const col = { name: h.name, kind: h.kind as "numeric", storage: "numeric" } as NumericColumn;
    put(col, "values", values);
    if (h.booleanLabels) col.booleanLabels = h.booleanLabels;
    if (h.dateOnly) col.dateOnly = true;
    if (h.spellings) {
      const codes = h.spellings.segments ? checkSegments(`spellings of ${what}`, h.spellings.segments, "codes") : data;
      if (h.stores !== "codes" && !h.spellings.segments) fail(`${what} has spellings but no codes`);
      col.spellings = { dictionary: h.spellings.dictionary } as NonNullable<NumericColumn["spellings"]>;
      put(col.spellings, "codes", codes);
    }
    return col;
  });
  return { rowCount: rows, columns };
}

const isObject = (x: unknown): x is Record<string, never> => typeof x === "object" && x !== null && !Array.isArray(x);

/** values[i] = table[codes[i]], NaN for -1: a code past the table is a corrupt frame. */
function valuesOf(codes: Int32Array, table: Float64Array, what: string): Float64Array {
  const out = new Float64Array(codes.length);
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i];
    if (c < 0) out[i] = Number.NaN;
    else if (c < table.length) out[i] = table[c];
    else throw new Error(`decodeFrame: ${what} has code ${c} past its table of ${table.length}`);
  }
  return out;
}
