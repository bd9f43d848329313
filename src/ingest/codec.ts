import type { Column, DictionaryColumn, Frame, NumericColumn } from "../ml/frame";
import {
  type ColumnEncoding,
  decodeCodes,
  decodeValues,
  encodeCodes,
  encodeValues,
  needsVersion3,
  type StoredBuffer,
  storedLength,
  validEncoding,
} from "./column-encoding";
import { LazyColumns, putColumnArray } from "./lazy-columns";
import { decodeSegmentedFrame, SEGMENTED_VERSION } from "./segmented-frame";

/**
 * The stored form of a frame the Worker writes (small ingests, previews), read by training; the
 * trainer writes version 4 instead (./segmented-frame: columns in row segments, so that the frame
 * is stored while its file is read), which decodeFrame reads too:
 *
 *   0   "TMLF" magic
 *   4   u32 version: 3 when a column uses a layout of version 3 (bits under a byte, 3 bytes:
 *       column-encoding.ts), else 2; versions 1 and 2 are still read
 *   8   u32 byte length of the JSON header
 *   12  JSON header, UTF-8: { rowCount, columns: [{ name, kind, storage, offset, byteLength,
 *       encoding?, dictionary? }] } with offsets relative to the data section
 *   ..  zero padding to a multiple of 8
 *   ..  data section: one buffer per column, each starting at a multiple of 8, little-endian; a
 *       boolean column with per-row spellings has a second buffer (its codes into
 *       `spellings.dictionary`, with `spellings.encoding?`) right after its values
 *
 * A buffer without `encoding` is raw (Float64Array values or Int32Array codes, as in version 1,
 * which has no encodings); one with an encoding is narrower or absent (column-encoding.ts) and
 * decodes to the same bits. Raw buffers decode as typed-array views over the input bytes (the
 * alignment is what allows it), encoded ones into new arrays. Dictionaries live in the header:
 * they are strings, and JSON is the cheap way.
 */
const MAGIC = [0x54, 0x4d, 0x4c, 0x46]; // "TMLF"
const PREFIX = 12;

interface HeaderColumn {
  name: string;
  kind: Column["kind"];
  storage: Column["storage"];
  offset: number;
  byteLength: number;
  /** How the values or codes are stored (versions 2 and 3); absent: raw. */
  encoding?: ColumnEncoding;
  dictionary?: string[];
  booleanLabels?: [string, string];
  dateOnly?: boolean;
  /** Per-row spellings of a boolean column: codes stored right after its values (raw: Int32). */
  spellings?: { dictionary: string[]; offset: number; encoding?: ColumnEncoding };
}

interface Header {
  rowCount: number;
  columns: HeaderColumn[];
}

const align8 = (n: number) => (n + 7) & ~7;
// Typed-array views use the machine's byte order; every Workers and Node target is little-endian.
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export interface FrameEncodeOptions {
  /**
   * Store columns in their narrower verified forms (default). Off for frames a Worker writes: a
   * Worker reads them back whole (row look-ups, training in the Worker), and decoding widens the
   * narrow columns into new arrays while the stored bytes are still held (up to ≈ 1.7× the raw
   * size at the peak, too much near a Worker's 128 MB), where raw columns decode as views.
   */
  narrow?: boolean;
}

export interface FrameDecodeOptions {
  /** Widen each column only when it is read, one held at a time (see decodeFrame). */
  lazy?: boolean;
}

/** The encoded frame as one buffer. Copies every column once; to write a large frame without
 * holding it twice, stream the pieces of frameChunks instead. */
export function encodeFrame(frame: Frame): Uint8Array {
  const { byteLength, chunks } = frameChunks(frame);
  const out = new Uint8Array(byteLength);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * The encoded frame as consecutive pieces that concatenate to encodeFrame's bytes: the header
 * (with its padding), then each column's bytes, with zero padding pieces between. A raw column's
 * piece is a VIEW of the frame's own array; an encoded one is its new, smaller buffer (made here,
 * column by column, so the total length is known before streaming). Lets the service stream the
 * frame to R2 (e.g. through a FixedLengthStream of `byteLength`) with no second full copy of the
 * data in memory: only the encoded columns, a fraction of the frame, are held besides it.
 */
export function frameChunks(frame: Frame, opts: FrameEncodeOptions = {}): { byteLength: number; chunks: Uint8Array[] } {
  const narrow = opts.narrow ?? true;
  const raw = (a: Float64Array | Int32Array): StoredBuffer => ({ bytes: new Uint8Array(a.buffer, a.byteOffset, a.byteLength) });
  if (!LITTLE_ENDIAN) throw new Error("encodeFrame: big-endian platforms are not supported");
  let offset = 0;
  let version = 2;
  const buffers: Uint8Array[] = [];
  const place = (stored: StoredBuffer): number => {
    if (needsVersion3(stored.encoding)) version = 3;
    const at = offset;
    buffers.push(stored.bytes);
    offset = align8(offset + stored.bytes.byteLength);
    return at;
  };
  const columns: HeaderColumn[] = frame.columns.map((c) => {
    const data = c.storage === "numeric" ? c.values : c.codes;
    const stored = !narrow ? raw(data) : c.storage === "numeric" ? encodeValues(c.values) : encodeCodes(c.codes);
    const entry: HeaderColumn = { name: c.name, kind: c.kind, storage: c.storage, offset: place(stored), byteLength: stored.bytes.byteLength };
    if (stored.encoding) entry.encoding = stored.encoding;
    if (c.storage === "dictionary") entry.dictionary = c.dictionary;
    else if (c.booleanLabels) entry.booleanLabels = c.booleanLabels;
    else if (c.dateOnly) entry.dateOnly = true;
    if (c.storage === "numeric" && c.spellings) {
      const codes = narrow ? encodeCodes(c.spellings.codes) : raw(c.spellings.codes);
      entry.spellings = { dictionary: c.spellings.dictionary, offset: place(codes) };
      if (codes.encoding) entry.spellings.encoding = codes.encoding;
    }
    return entry;
  });
  const json = new TextEncoder().encode(JSON.stringify({ rowCount: frame.rowCount, columns } satisfies Header));
  const dataStart = align8(PREFIX + json.length);
  const head = new Uint8Array(dataStart);
  head.set(MAGIC, 0);
  const view = new DataView(head.buffer);
  view.setUint32(4, version, true);
  view.setUint32(8, json.length, true);
  head.set(json, PREFIX);
  const chunks: Uint8Array[] = [head];
  for (const b of buffers) {
    if (b.byteLength > 0) chunks.push(b);
    const pad = align8(b.byteLength) - b.byteLength;
    if (pad > 0) chunks.push(new Uint8Array(pad));
  }
  return { byteLength: dataStart + offset, chunks };
}

/**
 * Decodes versions 1 to 4 (version 4, columns in row segments: ./segmented-frame, always into new
 * arrays, so a frame of mostly raw columns is held twice for a moment while it decodes; versions
 * 1–3 as follows). Encoded columns are widened into new arrays. Raw columns are views
 * sharing memory with `bytes` (when it starts 8-byte aligned; otherwise one aligned copy is made
 * first), unless they are under half of the data: then they are copied too, so that the input,
 * mostly narrow columns already widened, can be let go of rather than held for a few views (at 10 M
 * rows of the benchmark table: 257 MiB held for one 38 MiB column, +200 MiB at training's peak).
 *
 * `lazy`: the frame keeps `bytes` and widens a column only when it is read, holding one widened
 * column at a time (./lazy-columns: for consumers that read column by column); raw columns are
 * then always views. Every buffer's place and length is still checked here, before any use.
 */
export function decodeFrame(bytes: Uint8Array, opts: FrameDecodeOptions = {}): Frame {
  if (!LITTLE_ENDIAN) throw new Error("decodeFrame: big-endian platforms are not supported");
  if (bytes.length < PREFIX || !MAGIC.every((b, i) => bytes[i] === b)) throw new Error("decodeFrame: not an encoded frame (bad magic)");
  if (bytes.byteOffset % 8 !== 0) bytes = bytes.slice();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(4, true);
  if (version === SEGMENTED_VERSION) return decodeSegmentedFrame(bytes, opts.lazy ? new LazyColumns() : null);
  if (version !== 1 && version !== 2 && version !== 3) throw new Error(`decodeFrame: unsupported version ${version}`);
  const headerLength = view.getUint32(8, true);
  if (PREFIX + headerLength > bytes.length) throw new Error("decodeFrame: truncated header");
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(PREFIX, PREFIX + headerLength))) as Header;
  const dataStart = align8(PREFIX + headerLength);
  const rows = header.rowCount;
  if (!Number.isSafeInteger(rows) || rows < 0 || !Array.isArray(header.columns)) throw new Error("decodeFrame: malformed header");

  /** The stored bytes of one buffer, checked to lie inside the data with the encoding's length. */
  const stored = (what: string, offset: number, encoding: unknown, storage: Column["storage"], byteLength?: number): Uint8Array => {
    if (encoding !== undefined && (version === 1 || !validEncoding(encoding, storage, version))) {
      throw new Error(`decodeFrame: ${what} has an unknown encoding ${JSON.stringify(encoding)}`);
    }
    const length = storedLength(encoding as ColumnEncoding | undefined, storage === "numeric" ? 8 : 4, rows);
    const start = dataStart + offset;
    const inside = Number.isSafeInteger(offset) && offset >= 0 && offset % 8 === 0 && start + length <= bytes.length;
    if ((byteLength !== undefined && byteLength !== length) || !inside) {
      throw new Error(`decodeFrame: ${what} lies outside the data or has the wrong length`);
    }
    return bytes.subarray(start, start + length);
  };
  const rawBytes = header.columns.reduce(
    (sum, h) => sum + (h.encoding ? 0 : rows * (h.storage === "numeric" ? 8 : 4)) + (h.spellings && !h.spellings.encoding ? rows * 4 : 0),
    0,
  );
  const lazy = opts.lazy ? new LazyColumns() : null;
  const copyRaw = !lazy && 2 * rawBytes < bytes.length - dataStart;
  // slice() of a typed array copies its bytes: NaN payloads and -0 kept.
  const values = (b: Uint8Array, encoding?: ColumnEncoding) => {
    if (encoding) return decodeValues(encoding, b, rows);
    const view = new Float64Array(b.buffer, b.byteOffset, rows);
    return copyRaw ? view.slice() : view;
  };
  const codes = (b: Uint8Array, encoding?: ColumnEncoding) => {
    if (encoding) return decodeCodes(encoding, b, rows);
    const view = new Int32Array(b.buffer, b.byteOffset, rows);
    return copyRaw ? view.slice() : view;
  };

  /** putColumnArray, eager for a raw buffer (a view either way). */
  const put = (target: object, prop: string, encoding: ColumnEncoding | undefined, decode: () => Float64Array | Int32Array) =>
    putColumnArray(encoding ? lazy : null, target, prop, decode);

  const columns = header.columns.map((h): Column => {
    const data = stored(`column "${h.name}"`, h.offset, h.encoding, h.storage, h.byteLength);
    if (h.storage === "numeric") {
      const col = { name: h.name, kind: h.kind as "numeric", storage: "numeric" } as NumericColumn;
      put(col, "values", h.encoding, () => values(data, h.encoding));
      if (h.booleanLabels) col.booleanLabels = h.booleanLabels;
      if (h.dateOnly) col.dateOnly = true;
      if (h.spellings) {
        const s = stored(`spellings of column "${h.name}"`, h.spellings.offset, h.spellings.encoding, "dictionary");
        const enc = h.spellings.encoding;
        col.spellings = { dictionary: h.spellings.dictionary } as NonNullable<NumericColumn["spellings"]>;
        put(col.spellings, "codes", enc, () => codes(s, enc));
      }
      return col;
    }
    if (h.storage !== "dictionary") throw new Error(`decodeFrame: column "${h.name}" has an unknown storage`);
    const col = { name: h.name, kind: h.kind as "categorical", storage: "dictionary" } as DictionaryColumn;
    put(col, "codes", h.encoding, () => codes(data, h.encoding));
    col.dictionary = h.dictionary ?? [];
    return col;
  });
  return { rowCount: rows, columns };
}
