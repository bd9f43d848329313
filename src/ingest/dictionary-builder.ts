import { normalizeCell } from "../ml/values";

/** Raw cell texts remembered by pushSpan, at most, over all the columns sharing a budget (one
 * table): a few MB whatever the number of columns. */
export const SPAN_CACHE_ENTRIES = 1 << 18;
/** After this many misses, a column whose cells miss more often than they hit stops looking. */
const SPAN_GIVE_UP_MISSES = 4096;

/** Whether text[start, start + key.length) equals key. */
function sameText(key: string, text: string, start: number): boolean {
  for (let k = 0; k < key.length; k++) if (key.charCodeAt(k) !== text.charCodeAt(start + k)) return false;
  return true;
}

/**
 * Dictionary-encodes one column as rows stream in: a Map from value to code and a growing
 * Int32Array of codes (-1 = missing). Raw rows are never kept, only one code per cell plus each
 * distinct string once, which is what makes inference cheap (it looks at distinct values only).
 */
export class DictionaryBuilder {
  readonly dictionary: string[] = [];
  private readonly index = new Map<string, number>();
  private spanKeys: Array<string | undefined> = new Array(64).fill(undefined);
  private spanHashes = new Int32Array(64);
  private spanCodes = new Int32Array(64);
  private spanSize = 0;
  private spanHits = 0;
  private spanMisses = 0;
  private spanOff = false;
  private codes: Int32Array;
  length = 0;
  missingCount = 0;

  /** `spanBudget`: entries pushSpan may still remember, shared by a table's columns. */
  constructor(
    initialCapacity = 1024,
    private readonly spanBudget: { left: number } = { left: SPAN_CACHE_ENTRIES },
  ) {
    this.codes = new Int32Array(Math.max(16, initialCapacity));
  }

  /** Appends a raw cell (trimmed; missing markers become -1). */
  push(raw: string): void {
    const s = normalizeCell(raw);
    this.pushCode(s === null ? -1 : this.codeOf(s));
  }

  /**
   * Appends the raw cell text[start, end), whose spanHash is `h`: like push(text.slice(start,
   * end)) but without making a string when the same raw text was seen before, as a small
   * open-addressing table maps raw cell text (hash, then compared character by character) to its
   * code. Hand-written for speed: the
   * slice, trim and Map look-up per cell were most of CSV ingestion's time. The table stops
   * growing when the shared budget (SPAN_CACHE_ENTRIES) is spent, and a column whose cells mostly
   * miss it (a continuous number, an id) stops looking.
   */
  pushSpan(text: string, start: number, end: number, h: number): void {
    if (this.spanOff) {
      this.push(text.slice(start, end));
      return;
    }
    if (this.spanMisses > SPAN_GIVE_UP_MISSES && this.spanMisses > this.spanHits) {
      // Mostly distinct values: stop looking, and leave the memory to the other columns.
      this.releaseSpans();
      this.push(text.slice(start, end));
      return;
    }
    const mask = this.spanKeys.length - 1;
    const len = end - start;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const key = this.spanKeys[slot];
      if (key === undefined) break;
      if (this.spanHashes[slot] === h && key.length === len && sameText(key, text, start)) {
        this.spanHits++;
        this.pushCode(this.spanCodes[slot]);
        return;
      }
    }
    this.spanMisses++;
    // A copy, so that the key does not keep the whole piece of text alive (see codeOf).
    const raw = ` ${text.slice(start, end)}`.slice(1);
    const s = normalizeCell(raw);
    const code = s === null ? -1 : this.codeOf(s);
    this.pushCode(code);
    if (this.spanBudget.left <= 0) return;
    this.spanBudget.left--;
    if (2 * (this.spanSize + 1) > this.spanKeys.length) this.growSpans();
    this.insertSpan(raw, h, code);
  }

  /** Stops remembering raw cell texts (pushSpan then slices every cell) and gives the entries
   * back to the shared budget: for a column that mostly misses, or is no longer pushed to. */
  releaseSpans(): void {
    if (this.spanOff) return;
    this.spanOff = true;
    this.spanBudget.left += this.spanSize;
    this.spanSize = 0;
    this.spanKeys = [];
    this.spanHashes = new Int32Array(0);
    this.spanCodes = new Int32Array(0);
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
    return codes;
  }

  private codeOf(s: string): number {
    let code = this.index.get(s);
    if (code === undefined) {
      code = this.dictionary.length;
      // Papa hands out substrings of its chunk; V8 keeps the whole chunk alive behind each one.
      // Flattening a NEW distinct value into its own string lets every chunk be collected.
      const own = ` ${s}`.slice(1);
      this.index.set(own, code);
      this.dictionary.push(own);
    }
    return code;
  }

  private insertSpan(raw: string, h: number, code: number): void {
    const mask = this.spanKeys.length - 1;
    let slot = h & mask;
    while (this.spanKeys[slot] !== undefined) slot = (slot + 1) & mask;
    this.spanKeys[slot] = raw;
    this.spanHashes[slot] = h;
    this.spanCodes[slot] = code;
    this.spanSize++;
  }

  private growSpans(): void {
    const keys = this.spanKeys;
    const hashes = this.spanHashes;
    const codes = this.spanCodes;
    this.spanKeys = new Array(keys.length * 2).fill(undefined);
    this.spanHashes = new Int32Array(keys.length * 2);
    this.spanCodes = new Int32Array(keys.length * 2);
    this.spanSize = 0;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (key !== undefined) this.insertSpan(key, hashes[i], codes[i]);
    }
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
