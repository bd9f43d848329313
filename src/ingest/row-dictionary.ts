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

  /** setCode for rows rowStart... in turn, each code from `codes` (none -1). */
  setCodes(rowStart: number, codes: Int32Array): void {
    const to = this.codes;
    let newlyPresent = 0;
    for (let i = 0; i < codes.length; i++) if (to[rowStart + i] < 0) newlyPresent++;
    to.set(codes, rowStart);
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
    for (; this.inOrder && i < rows; i++) {
      const c = codes[i];
      if (c < ordered.length) continue; // seen, or missing (-1)
      if (c !== ordered.length) {
        this.inOrder = false;
        break;
      }
      remap[c] = c;
      ordered.push(dictionary[c]);
    }
    for (; i < rows; i++) {
      const c = codes[i];
      if (c < 0) continue;
      if (remap[c] < 0) {
        remap[c] = ordered.length;
        ordered.push(dictionary[c]);
      }
      codes[i] = remap[c];
    }
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
