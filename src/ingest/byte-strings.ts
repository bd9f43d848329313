/** Distinct values (and their bytes) a column's table holds at most: beyond, pages are decoded
 * string by string again, as a column of mostly distinct values gains little from it. */
const MAX_ENTRIES = 1 << 22;
const MAX_BYTES = 1 << 28;
const utf8 = new TextDecoder();

/**
 * The distinct UTF-8 values of one Parquet string column stored PLAIN (not dictionary-encoded:
 * writers fall back to that when a column has many distinct values), each decoded to a JS string
 * once. A page's values become ids into `strings`, which only grows, so the page can be written
 * like a dictionary-encoded one. Decoding a string per cell and looking it up in a Map was most of
 * the time spent on such columns (≈ 1.2 µs a cell at 1.25 M distinct values); here a repeated
 * value costs a hash of its bytes and a byte comparison, in typed arrays. The strings are pairwise
 * different (values whose decoding is ambiguous are refused), which spares RowDictionary its Map.
 */
export class ByteStrings {
  readonly strings: string[] = [];
  /** Open addressing, at most half full: per slot its entry's hash, then entry + 1 (0 = empty).
   * Side by side, as each random access to a large table is a cache miss. */
  private slots = new Int32Array(2 << 12);
  /** Per entry: where its bytes start in the arena, and their length. */
  private entries = new Int32Array(2 << 10);
  /** The entries' bytes, one after the other. */
  private arena = new Uint8Array(1 << 16);
  private used = 0;
  /** Per value of the page being read: where its bytes start, their length, their hash. */
  private page = { starts: new Int32Array(0), lengths: new Int32Array(0), hashes: new Int32Array(0) };

  /**
   * The ids of a PLAIN BYTE_ARRAY page's `count` values (each a 4-byte little-endian length, then
   * the bytes) from `offset` of `page`; undefined when the table is full (the column has more
   * distinct values than are worth remembering) or a value is one whose decoding loses bytes.
   */
  readPage(page: Uint8Array, offset: number, count: number): Int32Array | undefined {
    if (this.strings.length >= MAX_ENTRIES || this.used >= MAX_BYTES) return undefined;
    const { starts, lengths, hashes } = this.scratch(count);
    const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
    // Three passes rather than one loop: each pass's random reads (the table, then the entries'
    // bytes) do not depend on one another, so the CPU overlaps their cache misses.
    let at = offset;
    for (let i = 0; i < count; i++) {
      if (at + 4 > page.length) throw new Error(`parquet byte array length at ${at} past the end of the page`);
      const length = view.getUint32(at, true);
      at += 4;
      if (at + length > page.length) throw new Error(`parquet byte array of ${length} bytes at ${at} past the end of the page`);
      starts[i] = at;
      lengths[i] = length;
      hashes[i] = hashBytes(page, at, length);
      at += length;
    }
    const ids = new Int32Array(count);
    const { slots } = this;
    const mask = (slots.length >> 1) - 1;
    for (let i = 0; i < count; i++) {
      const slot = hashes[i] & mask;
      ids[i] = slots[2 * slot] === hashes[i] ? slots[2 * slot + 1] - 1 : -1; // a candidate: same hash
    }
    for (let i = 0; i < count; i++) {
      const e = ids[i];
      if (e >= 0 && this.sameBytes(e, page, starts[i], lengths[i])) continue;
      ids[i] = this.idOf(page, starts[i], lengths[i], hashes[i]);
      if (ids[i] < 0) return undefined;
    }
    return ids;
  }

  /** The entry of the bytes with hash `h`, added if new; -1 for bytes whose decoding is ambiguous. */
  private idOf(bytes: Uint8Array, start: number, length: number, h: number): number {
    const { slots } = this;
    const mask = (slots.length >> 1) - 1;
    let slot = h & mask;
    for (let e = slots[2 * slot + 1]; e !== 0; slot = (slot + 1) & mask, e = slots[2 * slot + 1]) {
      if (slots[2 * slot] === h && this.sameBytes(e - 1, bytes, start, length)) return e - 1;
    }
    const text = utf8.decode(bytes.subarray(start, start + length));
    // Different bytes, different strings, except where decoding loses bytes: a leading BOM is
    // dropped, invalid UTF-8 becomes U+FFFD. Such values are left to the page's caller.
    if ((length >= 3 && bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf) || text.includes("\uFFFD")) return -1;
    const id = this.strings.length;
    this.strings.push(text);
    this.remember(id, bytes, start, length);
    slots[2 * slot] = h;
    slots[2 * slot + 1] = id + 1;
    if (4 * this.strings.length > slots.length) this.growSlots();
    return id;
  }

  private scratch(count: number): { starts: Int32Array; lengths: Int32Array; hashes: Int32Array } {
    if (this.page.starts.length < count) {
      this.page = { starts: new Int32Array(count), lengths: new Int32Array(count), hashes: new Int32Array(count) };
    }
    return this.page;
  }

  private sameBytes(entry: number, bytes: Uint8Array, start: number, length: number): boolean {
    if (this.entries[2 * entry + 1] !== length) return false;
    const { arena } = this;
    const from = this.entries[2 * entry];
    for (let k = 0; k < length; k++) if (arena[from + k] !== bytes[start + k]) return false;
    return true;
  }

  private remember(id: number, bytes: Uint8Array, start: number, length: number): void {
    if (2 * id === this.entries.length) {
      const entries = new Int32Array(2 * this.entries.length);
      entries.set(this.entries);
      this.entries = entries;
    }
    if (this.used + length > this.arena.length) {
      const arena = new Uint8Array(Math.max(this.arena.length * 2, this.used + length));
      arena.set(this.arena.subarray(0, this.used));
      this.arena = arena;
    }
    this.arena.set(bytes.subarray(start, start + length), this.used);
    this.entries[2 * id] = this.used;
    this.entries[2 * id + 1] = length;
    this.used += length;
  }

  private growSlots(): void {
    const old = this.slots;
    const slots = new Int32Array(2 * old.length);
    const mask = (slots.length >> 1) - 1;
    for (let s = 0; s < old.length; s += 2) {
      if (old[s + 1] === 0) continue;
      let slot = old[s] & mask;
      while (slots[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
      slots[2 * slot] = old[s];
      slots[2 * slot + 1] = old[s + 1];
    }
    this.slots = slots;
  }
}

/** FNV-1a, then murmur3's finalizer (FNV's low bits, which pick the slot, mix poorly). */
function hashBytes(bytes: Uint8Array, start: number, length: number): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < length; k++) h = Math.imul(h ^ bytes[start + k], 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}
