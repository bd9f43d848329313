import { normalizeCell } from "../ml/values";

/**
 * A string column of a known number of rows, dictionary-encoded, whose cells may be written in
 * any order (Parquet pages arrive with explicit row offsets). Unlike DictionaryBuilder.setAt, a
 * value's code can be taken once (codeOf) and then written to many rows (setCode): a Parquet
 * dictionary page is mapped to codes once per column chunk, not looked up once per cell.
 */
export class RowDictionary {
  readonly dictionary: string[] = [];
  private readonly index = new Map<string, number>();
  readonly codes: Int32Array;
  missingCount: number;
  /** Rows already renumbered into first-appearance order (settle), the renumbering, and the
   * dictionary in that order. */
  private settled = 0;
  /** remap is the identity so far (see settle). */
  private inOrder = true;
  private remap = new Int32Array(0);
  private readonly ordered: string[] = [];

  constructor(rows: number) {
    this.codes = new Int32Array(rows).fill(-1);
    this.missingCount = rows;
  }

  /** The code of a raw cell (trimmed), or -1 when it is a missing marker ("", "NA"...). */
  codeOf(raw: string): number {
    const s = normalizeCell(raw);
    if (s === null) return -1;
    // values added by codeOfDistinct join the Map now
    for (let k = this.index.size; k < this.dictionary.length; k++) this.index.set(this.dictionary[k], k);
    let code = this.index.get(s);
    if (code === undefined) {
      code = this.dictionary.length;
      this.index.set(s, code);
      this.dictionary.push(s);
    }
    return code;
  }

  /**
   * The code of a value that needs no normalizing (normalizeCell(s) === s) and differs from
   * every value given to codeOfDistinct before (a ByteStrings' strings). Until codeOf is first
   * called, no Map: at millions of distinct values its look-ups, each a few cache misses, cost
   * more than the rest of the column.
   */
  codeOfDistinct(s: string): number {
    if (this.index.size > 0) return this.codeOf(s);
    this.dictionary.push(s);
    return this.dictionary.length - 1;
  }

  /** Writes a code from codeOf to a row; -1 leaves the row as it was (missing). */
  setCode(row: number, code: number): void {
    if (code < 0) return;
    if (this.codes[row] < 0) this.missingCount--;
    this.codes[row] = code;
  }

  /**
   * setCode for the present rows of rowStart... (with defs, `rows` rows, defs[i] 0 = row i
   * missing; without, a row per index): the j-th present row gets codes[indices[j]], or indices[j] itself when
   * `codes` is undefined (none -1 then). A Parquet page's rows, by loops of their own (below).
   */
  setIndexed(rowStart: number, rows: number, defs: ArrayLike<number> | undefined, indices: ArrayLike<number>, codes?: Int32Array): void {
    const to = this.codes;
    const newlyPresent = codes
      ? defs
        ? setMappedWithDefs(to, rowStart, rows, defs, indices, codes)
        : setMapped(to, rowStart, indices, codes)
      : defs
        ? setWithDefs(to, rowStart, rows, defs, indices)
        : setAll(to, rowStart, indices);
    this.missingCount -= newlyPresent;
  }

  setAt(row: number, raw: string): void {
    this.setCode(row, this.codeOf(raw));
  }

  /**
   * Renumbers rows [settled so far, rows) in place into their final codes (finishInRowOrder's),
   * for rows that will not be written again (Parquet row groups are read in order): their codes
   * are then final while the file is still read (./streamed-frame). Later writes to those rows
   * would be wrong: only rows past `rows` may still be written.
   */
  settle(rows: number): Int32Array {
    const { codes, dictionary } = this;
    if (this.remap.length < dictionary.length) {
      const grown = new Int32Array(Math.max(dictionary.length, 2 * this.remap.length)).fill(-1);
      grown.set(this.remap);
      this.remap = grown;
    }
    const { remap, ordered } = this;
    let i = this.settled;
    // While codes were handed out in order of first appearance (ByteStrings ids, and so most
    // large dictionaries), the renumbering is the identity: no look-up per row (each a cache miss
    // at a million codes), only new codes recorded.
    if (this.inOrder) {
      i = settleInOrder(codes, i, rows, remap, ordered, dictionary);
      if (i < rows) this.inOrder = false;
    }
    if (i < rows) settleRemapped(codes, i, rows, remap, ordered, dictionary);
    this.settled = Math.max(this.settled, rows);
    return codes;
  }

  /** The codes, renumbered so that the dictionary is in order of first appearance in the rows,
   * whatever order the cells were written in (keeps CSV and Parquet frames identical). */
  finishInRowOrder(): Int32Array {
    const codes = this.settle(this.codes.length);
    // not splice(0, n, ...ordered): spreading a million values as arguments overflows the stack
    this.dictionary.length = 0;
    for (const v of this.ordered) this.dictionary.push(v);
    this.index.clear();
    return codes;
  }
}

// The loops below are functions of their own, each with one job and nothing after its loop: V8
// compiles a long loop while it runs (on-stack replacement), before the code after it has ever
// run, and that code then has no type feedback and throws the compiled code away. With a
// Parquet page per row group (DuckDB) such a function runs only a few times, each for 120 k rows.

/** Codes as they come, a row per code; the number of rows that were missing before. */
function setAll(to: Int32Array, rowStart: number, codes: ArrayLike<number>): number {
  let newlyPresent = 0;
  for (let i = 0; i < codes.length; i++) {
    if (to[rowStart + i] < 0) newlyPresent++;
    to[rowStart + i] = codes[i];
  }
  return newlyPresent;
}

function setWithDefs(to: Int32Array, rowStart: number, rows: number, defs: ArrayLike<number>, codes: ArrayLike<number>): number {
  let newlyPresent = 0;
  for (let i = 0, j = 0; i < rows; i++) {
    if (!defs[i]) continue;
    if (to[rowStart + i] < 0) newlyPresent++;
    to[rowStart + i] = codes[j++];
  }
  return newlyPresent;
}

/** Each index's code (-1 leaves its row as it was). */
function setMapped(to: Int32Array, rowStart: number, indices: ArrayLike<number>, codes: Int32Array): number {
  let newlyPresent = 0;
  for (let i = 0; i < indices.length; i++) {
    const code = codes[indices[i]];
    if (code < 0) continue;
    if (to[rowStart + i] < 0) newlyPresent++;
    to[rowStart + i] = code;
  }
  return newlyPresent;
}

function setMappedWithDefs(
  to: Int32Array,
  rowStart: number,
  rows: number,
  defs: ArrayLike<number>,
  indices: ArrayLike<number>,
  codes: Int32Array,
): number {
  let newlyPresent = 0;
  for (let i = 0, j = 0; i < rows; i++) {
    if (!defs[i]) continue;
    const code = codes[indices[j++]];
    if (code < 0) continue;
    if (to[rowStart + i] < 0) newlyPresent++;
    to[rowStart + i] = code;
  }
  return newlyPresent;
}

/** settle's rows from `from` while their codes appear in order (each new code the next one):
 * records the new codes; returns the first row out of order (`rows` if none). */
function settleInOrder(codes: Int32Array, from: number, rows: number, remap: Int32Array, ordered: string[], dictionary: string[]): number {
  let i = from;
  for (; i < rows; i++) {
    const c = codes[i];
    if (c < ordered.length) continue; // seen, or missing (-1)
    if (c !== ordered.length) return i;
    remap[c] = c;
    ordered.push(dictionary[c]);
  }
  return i;
}

/** settle's rows from `from` renumbered through remap, new codes given the next number. */
function settleRemapped(codes: Int32Array, from: number, rows: number, remap: Int32Array, ordered: string[], dictionary: string[]): void {
  for (let i = from; i < rows; i++) {
    const c = codes[i];
    if (c < 0) continue;
    if (remap[c] < 0) {
      remap[c] = ordered.length;
      ordered.push(dictionary[c]);
    }
    codes[i] = remap[c];
  }
}
