import type { Column, Frame } from "../ml/frame";

/**
 * The canonical stored form of a frame (written to R2 after ingestion, read by training):
 *
 *   0   "TMLF" magic
 *   4   u32 version (1)
 *   8   u32 byte length of the JSON header
 *   12  JSON header, UTF-8: { rowCount, columns: [{ name, kind, storage, offset, byteLength,
 *       dictionary? }] } with offsets relative to the data section
 *   ..  zero padding to a multiple of 8
 *   ..  data section: one buffer per column (Float64Array values or Int32Array codes), each
 *       starting at a multiple of 8, little-endian; a boolean column with per-row spellings has
 *       a second buffer (Int32Array codes into `spellings.dictionary`) right after its values
 *
 * The alignment is what lets decodeFrame return typed-array views over the input bytes instead
 * of copies. Dictionaries live in the header: they are strings, and JSON is the cheap way.
 */
const MAGIC = [0x54, 0x4d, 0x4c, 0x46]; // "TMLF"
const VERSION = 1;
const PREFIX = 12;

interface HeaderColumn {
  name: string;
  kind: Column["kind"];
  storage: Column["storage"];
  offset: number;
  byteLength: number;
  dictionary?: string[];
  booleanLabels?: [string, string];
  dateOnly?: boolean;
  /** Per-row spellings of a boolean column: Int32 codes stored right after its values. */
  spellings?: { dictionary: string[]; offset: number };
}

interface Header {
  rowCount: number;
  columns: HeaderColumn[];
}

const align8 = (n: number) => (n + 7) & ~7;
// Typed-array views use the machine's byte order; every Workers and Node target is little-endian.
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

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
 * (with its padding), then each column's bytes as a VIEW of the frame's own array, with zero
 * padding pieces between. Lets the service stream the frame to R2 (e.g. through a
 * FixedLengthStream of `byteLength`) with no second copy of the data in memory.
 */
export function frameChunks(frame: Frame): { byteLength: number; chunks: Uint8Array[] } {
  if (!LITTLE_ENDIAN) throw new Error("encodeFrame: big-endian platforms are not supported");
  let offset = 0;
  const columns: HeaderColumn[] = frame.columns.map((c) => {
    const data = c.storage === "numeric" ? c.values : c.codes;
    const entry: HeaderColumn = { name: c.name, kind: c.kind, storage: c.storage, offset, byteLength: data.byteLength };
    if (c.storage === "dictionary") entry.dictionary = c.dictionary;
    else if (c.booleanLabels) entry.booleanLabels = c.booleanLabels;
    else if (c.dateOnly) entry.dateOnly = true;
    offset = align8(offset + data.byteLength);
    if (c.storage === "numeric" && c.spellings) {
      entry.spellings = { dictionary: c.spellings.dictionary, offset };
      offset = align8(offset + c.spellings.codes.byteLength);
    }
    return entry;
  });
  const json = new TextEncoder().encode(JSON.stringify({ rowCount: frame.rowCount, columns } satisfies Header));
  const dataStart = align8(PREFIX + json.length);
  const head = new Uint8Array(dataStart);
  head.set(MAGIC, 0);
  const view = new DataView(head.buffer);
  view.setUint32(4, VERSION, true);
  view.setUint32(8, json.length, true);
  head.set(json, PREFIX);
  const chunks: Uint8Array[] = [head];
  frame.columns.forEach((c) => {
    const data = c.storage === "numeric" ? c.values : c.codes;
    chunks.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    const pad = align8(data.byteLength) - data.byteLength;
    if (pad > 0) chunks.push(new Uint8Array(pad));
    if (c.storage === "numeric" && c.spellings) {
      const codes = c.spellings.codes;
      chunks.push(new Uint8Array(codes.buffer, codes.byteOffset, codes.byteLength));
      const codePad = align8(codes.byteLength) - codes.byteLength;
      if (codePad > 0) chunks.push(new Uint8Array(codePad));
    }
  });
  return { byteLength: dataStart + offset, chunks };
}

/** Decodes without copying column data when `bytes` starts 8-byte aligned (it then shares
 * memory with `bytes`); otherwise makes one aligned copy first. */
export function decodeFrame(bytes: Uint8Array): Frame {
  if (!LITTLE_ENDIAN) throw new Error("decodeFrame: big-endian platforms are not supported");
  if (bytes.length < PREFIX || !MAGIC.every((b, i) => bytes[i] === b)) throw new Error("decodeFrame: not an encoded frame (bad magic)");
  if (bytes.byteOffset % 8 !== 0) bytes = bytes.slice();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(4, true);
  if (version !== VERSION) throw new Error(`decodeFrame: unsupported version ${version}`);
  const headerLength = view.getUint32(8, true);
  if (PREFIX + headerLength > bytes.length) throw new Error("decodeFrame: truncated header");
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(PREFIX, PREFIX + headerLength))) as Header;
  const dataStart = align8(PREFIX + headerLength);
  const rows = header.rowCount;
  const columns = header.columns.map((h): Column => {
    const width = h.storage === "numeric" ? 8 : 4;
    const start = dataStart + h.offset;
    if (h.byteLength !== rows * width || start % 8 !== 0 || start + h.byteLength > bytes.length) {
      throw new Error(`decodeFrame: column "${h.name}" lies outside the data or has the wrong length`);
    }
    const at = bytes.byteOffset + start;
    if (h.storage === "numeric") {
      const col: Column = { name: h.name, kind: h.kind as "numeric", storage: "numeric", values: new Float64Array(bytes.buffer, at, rows) };
      if (h.booleanLabels) col.booleanLabels = h.booleanLabels;
      if (h.dateOnly) col.dateOnly = true;
      if (h.spellings) {
        const codesStart = dataStart + h.spellings.offset;
        if (codesStart % 8 !== 0 || codesStart + rows * 4 > bytes.length) {
          throw new Error(`decodeFrame: spellings of column "${h.name}" lie outside the data`);
        }
        col.spellings = { dictionary: h.spellings.dictionary, codes: new Int32Array(bytes.buffer, bytes.byteOffset + codesStart, rows) };
      }
      return col;
    }
    return {
      name: h.name,
      kind: h.kind as "categorical",
      storage: "dictionary",
      codes: new Int32Array(bytes.buffer, at, rows),
      dictionary: h.dictionary ?? [],
    };
  });
  return { rowCount: rows, columns };
}
