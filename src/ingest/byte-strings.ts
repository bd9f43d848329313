import { AsciiBatch } from "./ascii-batch";

/** Distinct values (and their bytes) a column's table holds at most: beyond, pages are decoded
 * string by string again, as a column of mostly distinct values gains little from it. */
const MAX_ENTRIES = 1 << 22;
const MAX_BYTES = 1 << 28;
/** Values of up to this many bytes are compared as four 32-bit words (see packWords), without
 * going to their bytes: most high-cardinality text (ids, codes, names) is this short. */
const INLINE = 16;
/** The low `n` bytes of a word. */
const LOW_BYTES = [0, 0xff, 0xffff, 0xffffff, -1];
const utf8 = new TextDecoder();

/**
 * The distinct UTF-8 values of one Parquet string column stored PLAIN (not dictionary-encoded:
 * writers fall back to that when a column has many distinct values), each decoded to a JS string
 * once. A page's values become ids into `strings`, which only grows, so the page can be written
 * like a dictionary-encoded one. Decoding a string per cell and looking it up in a Map was most of
 * the time spent on such columns (≈ 1.2 µs a cell at 1.25 M distinct values); here a repeated
 * value costs a hash of its bytes and a comparison, in typed arrays. The strings are pairwise
 * different (values whose decoding is ambiguous are refused), which spares RowDictionary its Map.
 *
 * At a million distinct values every look-up misses the cache, so the layout counts misses: a
 * slot holds a check word (hash bits and the length) beside its entry, and a short value's entry
 * is its bytes packed in four words, so a repeated short value costs two misses (slot, entry)
 * and four word comparisons. Longer values' entries point into an arena of their bytes.
 */
export class ByteStrings {
  readonly strings: string[] = [];
  /** Open addressing, at most half full: per slot its entry's check word, then entry + 1 (0 =
   * empty). Side by side, as each random access to a large table is a cache miss. */
  private slots = new Int32Array(2 << 12);
  /** Per entry, four words: a short value's bytes (packWords), else [arena start, length]. */
  private entries = new Int32Array(4 << 10);
  /** The long entries' bytes, one after the other. */
  private arena = new Uint8Array(1 << 12);
  private arenaUsed = 0;
  private readonly ascii = new AsciiBatch();
  /** All entries' bytes (the MAX_BYTES budget). */
  private used = 0;
  /** Per value of the page being read: where its bytes start, their length, hash, packed words,
   * id (reused from page to page: readPage's result is only valid until the next call). */
  private page = {
    starts: new Int32Array(0),
    lengths: new Int32Array(0),
    hashes: new Int32Array(0),
    words: new Int32Array(0),
    ids: new Int32Array(0),
  };

  /**
   * The ids of a PLAIN BYTE_ARRAY page's `count` values (each a 4-byte little-endian length, then
   * the bytes) from `offset` of `page`; undefined when the table is full (the column has more
   * distinct values than are worth remembering) or a value is one whose decoding loses bytes.
   * The ids are overwritten by the next call.
   */
  readPage(page: Uint8Array, offset: number, count: number): Int32Array | undefined {
    if (this.strings.length >= MAX_ENTRIES || this.used >= MAX_BYTES) return undefined;
    const { starts, lengths, hashes, words } = this.scratch(count);
    const ids = this.page.ids.subarray(0, count);
    // Three passes rather than one loop: each pass's random reads (the slots, then the entries)
    // do not depend on one another, so the CPU overlaps their cache misses. Each is a function of
    // its own, with nothing after its loop: see row-dictionary.ts (V8 compiles a long loop while
    // it runs; code after it that has not run yet is thrown away).
    splitValues(page, offset, count, starts, lengths, hashes, words);
    probe(this.slots, hashes, lengths, ids);
    let refused = false;
    for (
      let i = confirmed(this.entries, this.arena, page, this.page, ids, 0);
      i < count;
      i = confirmed(this.entries, this.arena, page, this.page, ids, i + 1)
    ) {
      ids[i] = this.idOf(page, i);
      refused = ids[i] < 0;
      if (refused) break;
    }
    this.ascii.flush(this.strings); // before anything reads the new values' strings
    return refused ? undefined : ids;
  }

  /** The entry of the page's value `i`, added if new; -1 for bytes whose decoding is ambiguous. */
  private idOf(bytes: Uint8Array, i: number): number {
    const { starts, lengths, hashes } = this.page;
    const start = starts[i];
    const length = lengths[i];
    const { slots } = this;
    const mask = (slots.length >> 1) - 1;
    const c = checkWord(hashes[i], length);
    let slot = slotOf(hashes[i], mask);
    for (let e = slots[2 * slot + 1]; e !== 0; slot = (slot + 1) & mask, e = slots[2 * slot + 1]) {
      if (slots[2 * slot] === c && this.same(e - 1, bytes, i)) return e - 1;
    }
    const id = this.strings.length;
    const w = 4 * i;
    const { words } = this.page;
    if (length <= INLINE && ((words[w] | words[w + 1] | words[w + 2] | words[w + 3]) & 0x80808080) === 0) {
      this.strings.push(""); // made with the page's other new ASCII values (readPage)
      this.ascii.add(id, bytes, start, length);
    } else {
      const text = utf8.decode(bytes.subarray(start, start + length));
      // Different bytes, different strings, except where decoding loses bytes: a leading BOM is
      // dropped, invalid UTF-8 becomes U+FFFD. Such values are left to the page's caller.
      if ((length >= 3 && bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf) || text.includes("\uFFFD")) return -1;
      this.strings.push(text);
    }
    this.remember(id, bytes, i);
    slots[2 * slot] = c;
    slots[2 * slot + 1] = id + 1;
    if (4 * this.strings.length > slots.length) this.growSlots();
    return id;
  }

  private scratch(count: number): { starts: Int32Array; lengths: Int32Array; hashes: Int32Array; words: Int32Array } {
    if (this.page.starts.length < count) {
      const n = () => new Int32Array(count);
      this.page = { starts: n(), lengths: n(), hashes: n(), words: new Int32Array(4 * count), ids: n() };
    }
    return this.page;
  }

  /** Whether entry `entry` (of the same check word, hence length class) is the page's value `i`. */
  private same(entry: number, bytes: Uint8Array, i: number): boolean {
    const { starts, lengths, words } = this.page;
    if (lengths[i] > INLINE) return this.sameBytes(entry, bytes, starts[i], lengths[i]);
    const { entries } = this;
    const r = 4 * entry;
    const w = 4 * i;
    return entries[r] === words[w] && entries[r + 1] === words[w + 1] && entries[r + 2] === words[w + 2] && entries[r + 3] === words[w + 3];
  }

  /** A long entry against bytes of more than INLINE bytes. */
  private sameBytes(entry: number, bytes: Uint8Array, start: number, length: number): boolean {
    return this.entries[4 * entry + 1] === length && sameAs(this.arena, this.entries[4 * entry], bytes, start, length);
  }

  private remember(id: number, bytes: Uint8Array, i: number): void {
    const { starts, lengths, words } = this.page;
    const start = starts[i];
    const length = lengths[i];
    if (4 * id === this.entries.length) {
      const entries = new Int32Array(2 * this.entries.length);
      entries.set(this.entries);
      this.entries = entries;
    }
    const r = 4 * id;
    this.used += length;
    if (length <= INLINE) {
      const { entries } = this;
      for (let k = 0; k < 4; k++) entries[r + k] = words[4 * i + k];
      return;
    }
    if (this.arenaUsed + length > this.arena.length) {
      const arena = new Uint8Array(Math.max(this.arena.length * 2, this.arenaUsed + length));
      arena.set(this.arena.subarray(0, this.arenaUsed));
      this.arena = arena;
    }
    this.arena.set(bytes.subarray(start, start + length), this.arenaUsed);
    this.entries[r] = this.arenaUsed;
    this.entries[r + 1] = length;
    this.arenaUsed += length;
  }

  private growSlots(): void {
    const old = this.slots;
    const slots = new Int32Array(2 * old.length);
    const mask = (slots.length >> 1) - 1;
    for (let s = 0; s < old.length; s += 2) {
      if (old[s + 1] === 0) continue;
      let slot = slotOf(old[s], mask); // the check word keeps the hash bits slotOf uses
      while (slots[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
      slots[2 * slot] = old[s];
      slots[2 * slot + 1] = old[s + 1];
    }
    this.slots = slots;
  }
}

/** A slot's check word: the hash's high 27 bits and the length (exact below 31), so that equal
 * check words mean equal lengths for every value packed in words. */
function checkWord(h: number, length: number): number {
  return (h & ~31) | Math.min(length, 31);
}

/** The home slot of hash `h`: bits the check word keeps, so that growSlots can re-place it. */
function slotOf(h: number, mask: number): number {
  return (h >>> 5) & mask;
}

/**
 * Packs a value of at most INLINE bytes at `at` into words[w...w+3] (little-endian, zero past its
 * end; with its length known from the check word, the words are the value) and returns its hash.
 * Reads whole words, past the value's end where the page allows, then masks.
 */
function packWords(page: Uint8Array, view: DataView, at: number, length: number, words: Int32Array, w: number): number {
  let w0 = 0;
  let w1 = 0;
  let w2 = 0;
  let w3 = 0;
  if (at + 16 <= page.length) {
    w0 = view.getInt32(at, true);
    w1 = view.getInt32(at + 4, true);
    w2 = view.getInt32(at + 8, true);
    w3 = view.getInt32(at + 12, true);
    if (length > 12) w3 &= LOW_BYTES[length - 12];
    else {
      w3 = 0;
      if (length > 8) w2 &= LOW_BYTES[length - 8];
      else {
        w2 = 0;
        if (length > 4) w1 &= LOW_BYTES[length - 4];
        else {
          w1 = 0;
          w0 &= LOW_BYTES[length];
        }
      }
    }
  } else {
    for (let k = 0; k < length; k++) {
      const b = page[at + k] << ((k & 3) << 3);
      if (k < 4) w0 |= b;
      else if (k < 8) w1 |= b;
      else if (k < 12) w2 |= b;
      else w3 |= b;
    }
  }
  words[w] = w0;
  words[w + 1] = w1;
  words[w + 2] = w2;
  words[w + 3] = w3;
  return finalMix(mix(mix(mix(mix(length, w0), w1), w2), w3));
}

/** A value of more than INLINE bytes: FNV-1a, then the finalizer (FNV's bits mix poorly). */
function hashBytes(bytes: Uint8Array, start: number, length: number): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < length; k++) h = Math.imul(h ^ bytes[start + k], 0x01000193);
  return finalMix(h);
}

/** murmur3's mixing of a word into the hash. */
function mix(h: number, word: number): number {
  let k = Math.imul(word, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  const x = h ^ Math.imul(k, 0x1b873593);
  return (Math.imul((x << 13) | (x >>> 19), 5) + 0xe6546b64) | 0;
}

/** murmur3's finalizer. */
function finalMix(h: number): number {
  let x = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return x ^ (x >>> 16);
}

/** A page's `count` values from `offset` (each a 4-byte little-endian length, then its bytes):
 * where each starts, its length, its hash and (up to INLINE bytes) its packed words. */
function splitValues(
  page: Uint8Array,
  offset: number,
  count: number,
  starts: Int32Array,
  lengths: Int32Array,
  hashes: Int32Array,
  words: Int32Array,
): void {
  const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 4 > page.length) throw new Error(`parquet byte array length at ${at} past the end of the page`);
    const length = view.getUint32(at, true);
    at += 4;
    if (at + length > page.length) throw new Error(`parquet byte array of ${length} bytes at ${at} past the end of the page`);
    starts[i] = at;
    lengths[i] = length;
    hashes[i] = length <= INLINE ? packWords(page, view, at, length, words, 4 * i) : hashBytes(page, at, length);
    at += length;
  }
}

/** Per value, the entry of the first slot of its probe sequence with its check word (a
 * candidate), or -1 where an empty slot comes first (new). */
function probe(slots: Int32Array, hashes: Int32Array, lengths: Int32Array, ids: Int32Array): void {
  const mask = (slots.length >> 1) - 1;
  for (let i = 0; i < ids.length; i++) {
    const c = checkWord(hashes[i], lengths[i]);
    let slot = slotOf(hashes[i], mask);
    while (slots[2 * slot + 1] !== 0 && slots[2 * slot] !== c) slot = (slot + 1) & mask;
    ids[i] = slots[2 * slot + 1] - 1;
  }
}

/** The first value from `from` on whose candidate is not its entry (or ids.length). */
function confirmed(
  entries: Int32Array,
  arena: Uint8Array,
  page: Uint8Array,
  { starts, lengths, words }: { starts: Int32Array; lengths: Int32Array; words: Int32Array },
  ids: Int32Array,
  from: number,
): number {
  for (let i = from; i < ids.length; i++) {
    const e = ids[i];
    if (e < 0) return i;
    const r = 4 * e;
    if (lengths[i] > INLINE) {
      if (entries[r + 1] !== lengths[i] || !sameAs(arena, entries[r], page, starts[i], lengths[i])) return i;
    } else {
      const w = 4 * i;
      if (entries[r] !== words[w] || entries[r + 1] !== words[w + 1] || entries[r + 2] !== words[w + 2] || entries[r + 3] !== words[w + 3]) return i;
    }
  }
  return ids.length;
}

/** Whether arena[from...] holds bytes[start, start + length). */
function sameAs(arena: Uint8Array, from: number, bytes: Uint8Array, start: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (arena[from + k] !== bytes[start + k]) return false;
  return true;
}
