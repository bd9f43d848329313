import { normalizeCell } from "../ml/values";

/**
 * Dictionary-encodes one column as rows stream in: a Map from value to code and a growing
 * Int32Array of codes (-1 = missing). Raw rows are never kept, only one code per cell plus each
 * distinct string once, which is what makes inference cheap (it looks at distinct values only).
 */
export class DictionaryBuilder {
  readonly dictionary: string[] = [];
  private readonly index = new Map<string, number>();
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
