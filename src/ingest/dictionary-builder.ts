import { normalizeCell } from "../ml/values";

/** Raw cell texts other than a dictionary value (padded with whitespace, missing markers) that
 * pushSpan remembers per column, at most: beyond that they are sliced and trimmed every time. */
const MAX_ALIASES = 65536;
/** find's answer when the text is not in the index. */
const ABSENT = -2;

/** Whether text[start, start + key.length) equals key. */
function sameText(key: string, text: string, start: number): boolean {
  for (let k = 0; k < key.length; k++) if (key.charCodeAt(k) !== text.charCodeAt(start + k)) return false;
  return true;
}

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

/** A copy of s as a flat string of its own: a substring would keep its whole piece of text alive. */
const own = (s: string) => ` ${s}`.slice(1);

/**
 * Dictionary-encodes one column as rows stream in: the distinct values in order of first
 * appearance and a growing Int32Array of codes (-1 = missing). Raw rows are never kept, only one
 * code per cell plus each distinct string once, which is what makes inference cheap (it looks at
 * distinct values only).
 *
 * The index from value to code is an open-addressing table of (hash, entry) pairs in one
 * Int32Array, hashed with the tokenizer's span hash, so that pushSpan finds a cell's code by
 * comparing the text of the piece with the dictionary value in place: a cell repeating a value
 * makes no string, no trim, no Map look-up (those were most of CSV ingestion's time; a Map was
 * also the larger part of a high-cardinality column's memory). An entry is a dictionary code + 1,
 * or -(a + 1) for an alias: a raw text that is not itself a value (" a ", "NA") with the code it
 * normalizes to (-1 for missing).
 */
export class DictionaryBuilder {
  readonly dictionary: string[] = [];
  /** Pairs (hash, entry), entry 0 = empty; load at most 1/2. Empty (length 0) after
   * finishInRowOrder renumbered the codes: rebuilt if anything is pushed after that. */
  private slots = new Int32Array(2 * 64);
  private used = 0;
  private readonly aliasKeys: string[] = [];
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
    if (this.slots.length === 0) this.reindex();
    const code = this.find(text, start, end, h);
    this.pushCode(code !== ABSENT ? code : this.addSpan(text, start, end, h));
  }

  /** Appends a value that is already known not to be a missing marker, or null for missing. */
  pushValue(s: string | null): void {
    this.pushCode(s === null ? -1 : this.codeOf(s));
  }

  /** A builder of exactly `rows` cells, all missing until written with setAt (Parquet chunks
   * arrive with explicit row offsets, possibly out of order). */
  static forRows(rows: number): DictionaryBuilder {
    const b = new DictionaryBuilder(16);
    b.codes = new Int32Array(rows).fill(-1);
    b.length = rows;
    b.missingCount = rows;
    return b;
  }

  /** Writes one cell of a builder made by forRows. */
  setAt(row: number, raw: string | null): void {
    const s = raw === null ? null : normalizeCell(raw);
    if (s === null) return;
    if (this.codes[row] < 0) this.missingCount--;
    this.codes[row] = this.codeOf(s);
  }

  /** The codes, trimmed to the row count (a view when it already fits, no copy). */
  finish(): Int32Array {
    return this.length === this.codes.length ? this.codes : this.codes.slice(0, this.length);
  }

  /** Like finish, but renumbers codes so the dictionary is in order of first appearance in the
   * rows, whatever order the cells were written in (keeps CSV and Parquet frames identical). */
  finishInRowOrder(): Int32Array {
    const codes = this.finish();
    const remap = new Int32Array(this.dictionary.length).fill(-1);
    const ordered: string[] = [];
    for (let i = 0; i < codes.length; i++) {
      const c = codes[i];
      if (c < 0) continue;
      if (remap[c] < 0) {
        remap[c] = ordered.length;
        ordered.push(this.dictionary[c]);
      }
      codes[i] = remap[c];
    }
    // not splice(0, n, ...ordered): spreading a million values as arguments overflows the stack
    this.dictionary.length = 0;
    for (const v of ordered) this.dictionary.push(v);
    // The index holds the old codes: dropped (memory), rebuilt if anything is pushed after this.
    this.slots = new Int32Array(0);
    this.used = 0;
    return codes;
  }

  /** The code of text[start, end) (hash h) if it is a dictionary value or a known alias, else ABSENT. */
  private find(text: string, start: number, end: number, h: number): number {
    const slots = this.slots;
    const mask = (slots.length >>> 1) - 1;
    const len = end - start;
    for (let i = mix(h) & mask; ; i = (i + 1) & mask) {
      const entry = slots[2 * i + 1];
      if (entry === 0) return ABSENT;
      if (slots[2 * i] !== h) continue;
      if (entry > 0) {
        const key = this.dictionary[entry - 1];
        if (key.length === len && sameText(key, text, start)) return entry - 1;
      } else {
        const key = this.aliasKeys[-entry - 1];
        if (key.length === len && sameText(key, text, start)) return this.aliasCodes[-entry - 1];
      }
    }
  }

  /** A raw cell not in the index: its code, remembering it as a value or an alias. */
  private addSpan(text: string, start: number, end: number, h: number): number {
    const raw = text.slice(start, end);
    const s = normalizeCell(raw);
    if (s === raw) return this.add(own(raw), h); // a new value (find would have found it)
    const code = s === null ? -1 : this.codeOf(s);
    if (this.aliasKeys.length < MAX_ALIASES) {
      this.aliasKeys.push(own(raw));
      this.aliasCodes.push(code);
      this.insert(h, -this.aliasKeys.length);
    }
    return code;
  }

  /** The code of a normalized value, added if new. */
  private codeOf(s: string): number {
    if (this.slots.length === 0) this.reindex();
    const h = textHash(s);
    const code = this.find(s, 0, s.length, h);
    // Papa and the tokenizer hand out substrings of their piece of text; V8 keeps the whole piece
    // alive behind each one. A NEW distinct value gets a string of its own (own).
    return code !== ABSENT ? code : this.add(own(s), h);
  }

  private add(value: string, h: number): number {
    const code = this.dictionary.length;
    this.dictionary.push(value);
    this.insert(h, code + 1);
    return code;
  }

  private insert(h: number, entry: number): void {
    if (2 * (this.used + 1) > this.slots.length >>> 1) this.grow();
    const slots = this.slots;
    const mask = (slots.length >>> 1) - 1;
    let i = mix(h) & mask;
    while (slots[2 * i + 1] !== 0) i = (i + 1) & mask;
    slots[2 * i] = h;
    slots[2 * i + 1] = entry;
    this.used++;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(Math.max(2 * 64, old.length * 2));
    this.used = 0;
    for (let i = 0; i < old.length; i += 2) if (old[i + 1] !== 0) this.insert(old[i], old[i + 1]);
  }

  /** The index again, from the dictionary and the aliases (after finishInRowOrder dropped it). */
  private reindex(): void {
    this.slots = new Int32Array(2 * 64);
    this.used = 0;
    this.dictionary.forEach((v, code) => this.insert(textHash(v), code + 1));
    this.aliasKeys.length = 0;
    this.aliasCodes.length = 0;
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
