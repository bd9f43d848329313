import { normalizeCell } from "../ml/values";
import { asciiString } from "./ascii";
import type { SpanBatch } from "./span-batch";

/** Raw cell texts other than a dictionary value (padded with whitespace, missing markers) that
 * pushSpan remembers per column, at most: beyond that they are sliced and trimmed every time. */
const MAX_ALIASES = 65536;
/** Entries (values and aliases) from which the index no longer fits in a core's cache (16 bytes a
 * slot, at least twice as many slots): then CsvTable hands the column's cells over in batches. */
const LARGE_INDEX = 1 << 15;
/** find's answer when the text is not in the index. */
const ABSENT = -2;

/** The hash of text[start, end): the tokenizer's (csv-tokenizer spanHash), computed here for
 * strings pushed whole. */
function textHash(text: string): number {
  let h = 0;
  for (let k = 0; k < text.length; k++) h = (Math.imul(h, 31) + text.charCodeAt(k)) | 0;
  return h;
}

/** Spreads a hash over the slots (murmur3's finalizer): the tokenizer's polynomial hash puts
 * values that differ in their last characters (user_0001, user_0002) in neighbouring slots. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** A copy of s as a string of its own: a substring would keep its whole piece of text alive. */
const own = (s: string) => ` ${s}`.slice(1);
/** Ints per slot of the index: hash, entry, where the key's characters start in the arena, length. */
const SLOT = 4;

/**
 * Dictionary-encodes one column as rows stream in: the distinct values in order of first
 * appearance and a growing Int32Array of codes (-1 = missing). Raw rows are never kept, only one
 * code per cell plus each distinct string once, which is what makes inference cheap (it looks at
 * distinct values only).
 *
 * The index from value to code is an open-addressing table hashed with the tokenizer's span
 * hash, so that pushSpan finds a cell's code by comparing the text of the piece with the key in
 * place: a cell repeating a value makes no string, no trim, no Map look-up (those were most of
 * CSV ingestion's time; a Map was also the larger part of a high-cardinality column's memory).
 * A slot is four ints side by side (hash, entry, the key's start and length in `arena`, which
 * holds every key's characters one after the other), so a look-up in a large table (a column of
 * a million distinct values) misses the cache twice, on the slot and on the key's characters,
 * rather than four times (hash, entry, the key's pointer, the key string, in separate arrays: the
 * keys were also substrings of their own copies, one more hop). An entry is a dictionary code + 1
 * (its key the value), or -(a + 1) for alias a: a raw text that is not itself a value (" a ",
 * "NA"), whose code (what it normalizes to, -1 for missing) is aliasCodes[a].
 */
export class DictionaryBuilder {
  readonly dictionary: string[] = [];
  /** The index, load at most 1/2: SLOT ints per slot, hash, entry (0 = empty slot), key start, key length. */
  private slots = new Int32Array(64 * SLOT);
  private mask = 63;
  /** The keys' characters. */
  private arena = new Uint16Array(1024);
  private arenaUsed = 0;
  /** pushBatch's first pass's reads, combined (see there). */
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: only written, so that the engine cannot drop the reads it combines
  private touched = 0;
  private used = 0;
  private aliases = 0;
  private readonly aliasCodes: number[] = [];
  private codes: Int32Array;
  length = 0;
  missingCount = 0;

  constructor(initialCapacity = 1024) {
    this.codes = new Int32Array(Math.max(16, initialCapacity));
  }

  /** Appends a raw cell (trimmed; missing markers become -1). */
  push(raw: string): void {
    const s = normalizeCell(raw);
    this.pushCode(s === null ? -1 : this.codeOf(s));
  }

  /**
   * Appends the raw cell text[start, end), whose spanHash is `h`: like push(text.slice(start,
   * end)) but, when the same raw text was seen before, without making a string: the index is
   * probed with `h` and compared with the text in place. Hand-written for speed.
   */
  pushSpan(text: string, start: number, end: number, h: number): void {
    // find, written out here: this is the per-cell path of every dictionary-encoded CSV column.
    const { slots, mask, arena } = this;
    const len = end - start;
    for (let i = mix(h) & mask; ; i = (i + 1) & mask) {
      const at = i * SLOT;
      const entry = slots[at + 1];
      if (entry === 0) break;
      if (slots[at] !== h || slots[at + 3] !== len) continue;
      const from = slots[at + 2] - start;
      let k = start;
      while (k < end && arena[from + k] === text.charCodeAt(k)) k++;
      if (k === end) {
        this.pushCode(entry > 0 ? entry - 1 : this.aliasCodes[-entry - 1]);
        return;
      }
    }
    this.pushCode(this.addRaw(text.slice(start, end), h));
  }

  /** pushSpan for the ASCII bytes[start, end) (their text and spanHash are the same as of the
   * characters): the same look-up, reading a typed array instead of charCodeAt. */
  pushBytes(bytes: Uint8Array, start: number, end: number, h: number): void {
    const { slots, mask, arena } = this;
    const len = end - start;
    for (let i = mix(h) & mask; ; i = (i + 1) & mask) {
      const at = i * SLOT;
      const entry = slots[at + 1];
      if (entry === 0) break;
      if (slots[at] !== h || slots[at + 3] !== len) continue;
      const from = slots[at + 2] - start;
      let k = start;
      while (k < end && arena[from + k] === bytes[k]) k++;
      if (k === end) {
        this.pushCode(entry > 0 ? entry - 1 : this.aliasCodes[-entry - 1]);
        return;
      }
    }
    this.pushCode(this.addRaw(asciiString(bytes, start, end), h, true));
  }

  /** Whether the index is large enough that cells are best looked up in batches (pushBatch). */
  get large(): boolean {
    return this.used >= LARGE_INDEX;
  }

  /**
   * Appends a batch of cells of `text` (of `bytes` when given: an ASCII piece), in order, each as pushSpan (or push, for a string). A
   * first pass only reads each cell's first slot and the characters of its key: those reads do
   * not depend on one another, so the CPU overlaps their cache misses, and the second pass finds
   * them in cache. The pass reads nothing it writes, so codes are those of pushing one by one.
   */
  pushBatch(batch: SpanBatch, text: string, bytes: Uint8Array | null = null): void {
    const { starts, ends, hashes, count } = batch;
    const { slots, mask, arena } = this;
    // Two passes, the slots then the keys they name: each pass's reads are independent of one
    // another, so more cache misses are in flight at once than when each key read waits for its slot.
    const keys = batch.scratch();
    for (let i = 0; i < count; i++) keys[i] = slots[(mix(hashes[i]) & mask) * SLOT + 2];
    let touched = 0;
    for (let i = 0; i < count; i++) touched |= arena[keys[i]];
    this.touched = touched; // used, so the reads are not optimized away
    for (let i = 0; i < count; i++) {
      const s = starts[i];
      if (s < 0) this.push(batch.strings[i]);
      else if (bytes !== null) this.pushBytes(bytes, s, ends[i], hashes[i]);
      else this.pushSpan(text, s, ends[i], hashes[i]);
    }
  }

  /** Appends a value that is already known not to be a missing marker, or null for missing. */
  pushValue(s: string | null): void {
    this.pushCode(s === null ? -1 : this.codeOf(s));
  }

  /** Room for `capacity` codes in all, allocated now (the expected row count, rather than doublings). */
  reserve(capacity: number): void {
    if (capacity <= this.codes.length) return;
    const next = new Int32Array(capacity);
    next.set(this.codes.subarray(0, this.length));
    this.codes = next;
  }

  /** The codes so far, as a view (for a frame stored while the file is read: ./streamed-frame). */
  codesSoFar(): Int32Array {
    return this.codes.subarray(0, this.length);
  }

  /** The codes, trimmed to the row count: a view when at most 1/16 of the room is unused (the
   * room reserved for a file's expected rows: a copy would cost a pass over the column and, for a
   * moment, twice its memory), else a copy (after doublings, up to half would be unused). */
  finish(): Int32Array {
    const room = this.codes.length;
    return this.length >= room - (room >>> 4) ? this.codes.subarray(0, this.length) : this.codes.slice(0, this.length);
  }

  /** The code of text[start, end) (hash h) if it is a dictionary value or a known alias, else ABSENT. */
  private find(text: string, start: number, end: number, h: number): number {
    const { slots, mask, arena } = this;
    const len = end - start;
    for (let i = mix(h) & mask; ; i = (i + 1) & mask) {
      const at = i * SLOT;
      const entry = slots[at + 1];
      if (entry === 0) return ABSENT;
      if (slots[at] !== h || slots[at + 3] !== len) continue;
      const from = slots[at + 2] - start;
      let k = start;
      while (k < end && arena[from + k] === text.charCodeAt(k)) k++;
      if (k === end) return entry > 0 ? entry - 1 : this.aliasCodes[-entry - 1];
    }
  }

  /** A raw cell not in the index (its spanHash h): its code, remembering it as a value or an
   * alias. `fresh`: raw is a string of its own already (not a substring of a piece of text). */
  private addRaw(raw: string, h: number, fresh = false): number {
    const s = normalizeCell(raw);
    if (s === raw) return this.add(fresh ? raw : own(raw), h); // a new value (find would have found it)
    const code = s === null ? -1 : this.codeOf(s);
    if (this.aliases < MAX_ALIASES) {
      this.aliasCodes.push(code);
      this.insert(h, -++this.aliases, raw);
    }
    return code;
  }

  /** The code of a normalized value, added if new. */
  private codeOf(s: string): number {
    const h = textHash(s);
    const code = this.find(s, 0, s.length, h);
    // Papa and the tokenizer hand out substrings of their piece of text; V8 keeps the whole piece
    // alive behind each one. A NEW distinct value gets a string of its own (own).
    return code !== ABSENT ? code : this.add(own(s), h);
  }

  private add(value: string, h: number): number {
    const code = this.dictionary.length;
    this.dictionary.push(value);
    this.insert(h, code + 1, value);
    return code;
  }

  /** Adds key (hash h) to the index, its characters to the arena. */
  private insert(h: number, entry: number, key: string): void {
    if (2 * (this.used + 1) > this.mask + 1) this.grow();
    if (this.arenaUsed + key.length > this.arena.length) {
      const arena = new Uint16Array(Math.max(2 * this.arena.length, this.arenaUsed + key.length));
      arena.set(this.arena.subarray(0, this.arenaUsed));
      this.arena = arena;
    }
    const start = this.arenaUsed;
    for (let k = 0; k < key.length; k++) this.arena[start + k] = key.charCodeAt(k);
    this.arenaUsed += key.length;
    this.place(h, entry, start, key.length);
    this.used++;
  }

  private place(h: number, entry: number, start: number, length: number): void {
    const { slots, mask } = this;
    let i = mix(h) & mask;
    while (slots[i * SLOT + 1] !== 0) i = (i + 1) & mask;
    const at = i * SLOT;
    slots[at] = h;
    slots[at + 1] = entry;
    slots[at + 2] = start;
    slots[at + 3] = length;
  }

  /** Twice the slots, the keys where they are in the arena. */
  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    this.mask = this.slots.length / SLOT - 1;
    for (let at = 0; at < old.length; at += SLOT) if (old[at + 1] !== 0) this.place(old[at], old[at + 1], old[at + 2], old[at + 3]);
  }

  private pushCode(code: number): void {
    if (this.length === this.codes.length) this.ensure(this.length + 1);
    if (code < 0) this.missingCount++;
    this.codes[this.length++] = code;
  }

  private ensure(size: number): void {
    if (size <= this.codes.length) return;
    let cap = this.codes.length;
    while (cap < size) cap *= 2;
    const next = new Int32Array(cap);
    next.set(this.codes.subarray(0, this.length));
    this.codes = next;
  }
}
