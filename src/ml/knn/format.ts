/**
 * `index.bin`: the search index (./types) as one little-endian binary file, read back without
 * copying (typed-array views on the file's bytes), so a Worker parses it once per isolate in
 * O(rows) checks and holds it in about the file's size.
 *
 * Layout: a 64-byte header, then the sections in this order, each starting on an 8-byte boundary:
 *   header   "SRCHIDX1" | u32 kind (0 exact, 1 ivf) | u32 rows | u32 dims | u32 nlist | u32 nprobe |
 *            u32 id kind (0 u32, 1 f64, 2 utf8) | f64 recall (NaN: none) | u32 id bytes (utf8) | zeros
 *   centroids f64 [nlist × dims]   radius f64 [nlist]   start u32 [nlist + 1]
 *   rho f32 [rows]                 rowOf u32 [rows]
 *   exact: vectors f32 [rows × dims]
 *   ivf:   lo f32 [nlist × dims]   step f32 [nlist × dims]   codes u8 [rows × dims]
 *   ids:   u32 [rows] | f64 [rows] | offsets u32 [rows + 1] then bytes u8 [id bytes]
 * Size: exact 4·dims + 8 bytes a row, ivf dims + 8, plus the ids (4 or 8 bytes, or offset + UTF-8)
 * and nlist·(8·dims + 12) bytes of cells (ivf: 16·dims + 12). Per million rows
 * at 16 dimensions with integer ids: exact ≈ 76 MB, ivf ≈ 28 MB.
 */
import type { IdTable } from "./ids";
import type { SearchIndex } from "./types";

const MAGIC = "SRCHIDX1";
const HEADER = 64;
const ID_KINDS = ["u32", "f64", "utf8"] as const;

/** Typed arrays are host-endian; every platform this runs on is little-endian, checked once. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

interface Section {
  bytes: number;
  put?: (buf: ArrayBuffer, at: number) => void;
}

const align8 = (n: number) => (n + 7) & ~7;

function sections(index: SearchIndex): Section[] {
  const a = (arr: ArrayBufferView) => ({
    bytes: arr.byteLength,
    put: (buf: ArrayBuffer, at: number) => new Uint8Array(buf, at, arr.byteLength).set(new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength)),
  });
  const out = [a(index.centroids), a(index.radius), a(index.start), a(index.rho), a(index.rowOf)];
  if (index.kind === "exact") out.push(a(index.vectors));
  else out.push(a(index.lo), a(index.step), a(index.codes));
  const ids = index.ids;
  if (ids.kind === "utf8") out.push(a(ids.offsets), a(ids.bytes));
  else out.push(a(ids.values));
  return out;
}

/** Bytes of the index file of `rows` vectors of `dims` (nlist cells) with these ids' bytes. */
export function indexFileBytes(kind: SearchIndex["kind"], rows: number, dims: number, nlist: number, idBytes: number): number {
  const perRow = kind === "exact" ? 4 * dims + 8 : dims + 8;
  const perCell = kind === "exact" ? 8 * dims + 12 : 16 * dims + 12;
  return HEADER + rows * perRow + nlist * perCell + idBytes + 64;
}

/** Bytes the ids take in the file. */
export function idTableBytes(ids: IdTable): number {
  return ids.kind === "utf8" ? ids.offsets.byteLength + ids.bytes.byteLength : ids.values.byteLength;
}

export function serializeSearchIndex(index: SearchIndex): Uint8Array {
  if (!LITTLE_ENDIAN) throw new Error("index.bin is little-endian; this platform is not");
  const parts = sections(index);
  const total = parts.reduce((at, s) => align8(at) + s.bytes, HEADER);
  const buf = new ArrayBuffer(align8(total));
  const view = new DataView(buf);
  for (let i = 0; i < MAGIC.length; i++) view.setUint8(i, MAGIC.charCodeAt(i));
  view.setUint32(8, index.kind === "exact" ? 0 : 1, true);
  view.setUint32(12, index.rows, true);
  view.setUint32(16, index.dims, true);
  view.setUint32(20, index.nlist, true);
  view.setUint32(24, index.nprobe, true);
  view.setUint32(28, ID_KINDS.indexOf(index.ids.kind), true);
  view.setFloat64(32, index.recall ?? NaN, true);
  view.setUint32(40, index.ids.kind === "utf8" ? index.ids.bytes.length : 0, true);
  let at = HEADER;
  for (const s of parts) {
    at = align8(at);
    s.put?.(buf, at);
    at += s.bytes;
  }
  return new Uint8Array(buf);
}

/** Parses index.bin; throws on a file that is not a consistent index (wrong magic, sizes, cells, rows). */
export function parseSearchIndex(bytes: Uint8Array): SearchIndex {
  if (!LITTLE_ENDIAN) throw new Error("index.bin is little-endian; this platform is not");
  // views need 8-byte alignment of the file itself: copy once when the caller's bytes are not
  const b = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  const fail = (why: string): never => {
    throw new Error(`index.bin is damaged: ${why}`);
  };
  if (b.length < HEADER) fail("shorter than its header");
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let i = 0; i < MAGIC.length; i++) if (view.getUint8(i) !== MAGIC.charCodeAt(i)) fail("not a search index");
  const kindCode = view.getUint32(8, true);
  const rows = view.getUint32(12, true);
  const dims = view.getUint32(16, true);
  const nlist = view.getUint32(20, true);
  const nprobe = view.getUint32(24, true);
  const idKind = ID_KINDS[view.getUint32(28, true)];
  const recall = view.getFloat64(32, true);
  const idBytes = view.getUint32(40, true);
  if (kindCode > 1 || !idKind || rows < 1 || dims < 1 || nlist < 1 || nlist > rows || nprobe < 1 || nprobe > nlist) fail("bad header");
  let at = HEADER;
  const take = <T>(Ctor: { new (buf: ArrayBufferLike, at: number, n: number): T; BYTES_PER_ELEMENT: number }, n: number): T => {
    at = align8(at);
    if (at + n * Ctor.BYTES_PER_ELEMENT > b.length) fail("truncated");
    const out = new Ctor(b.buffer, b.byteOffset + at, n);
    at += n * Ctor.BYTES_PER_ELEMENT;
    return out;
  };
  const centroids = take(Float64Array, nlist * dims);
  const radius = take(Float64Array, nlist);
  const start = take(Uint32Array, nlist + 1);
  const rho = take(Float32Array, rows);
  const rowOf = take(Uint32Array, rows);
  const base = { rows, dims, nlist, nprobe, recall: Number.isNaN(recall) ? null : recall, centroids, radius, start, rho, rowOf };
  let index: SearchIndex;
  if (kindCode === 0) {
    const vectors = take(Float32Array, rows * dims);
    index = { kind: "exact", ...base, vectors, ids: readIds() };
  } else {
    const lo = take(Float32Array, nlist * dims);
    const step = take(Float32Array, nlist * dims);
    const codes = take(Uint8Array, rows * dims);
    index = { kind: "ivf", ...base, lo, step, codes, ids: readIds() };
  }
  if (align8(at) !== b.length) fail("unexpected trailing bytes");
  checkCells(index, fail);
  return index;

  function readIds(): IdTable {
    if (idKind === "u32") return { kind: "u32", values: take(Uint32Array, rows) };
    if (idKind === "f64") return { kind: "f64", values: take(Float64Array, rows) };
    const offsets = take(Uint32Array, rows + 1);
    const bytes = take(Uint8Array, idBytes);
    if (offsets[0] !== 0 || offsets[rows] !== idBytes) fail("bad id offsets");
    for (let i = 0; i < rows; i++) if (offsets[i + 1] < offsets[i]) fail("bad id offsets");
    return { kind: "utf8", offsets, bytes };
  }
}

/** The invariants search relies on: cells cover the rows in order, each row listed once. */
function checkCells(index: SearchIndex, fail: (why: string) => never): void {
  const { start, rowOf, rows } = index;
  if (start[0] !== 0 || start[index.nlist] !== rows) fail("cells do not cover the rows");
  for (let l = 0; l < index.nlist; l++) if (start[l + 1] < start[l]) fail("cells out of order");
  const seen = new Uint8Array(rows);
  for (let p = 0; p < rows; p++) {
    const r = rowOf[p];
    if (r >= rows || seen[r]) fail("bad row table");
    seen[r] = 1;
  }
}
