import type { Column } from "../ml/frame";
import { normalizeCell } from "../ml/values";
import { IngestError } from "./errors";
import { ID_COLUMN, keptIdFromNumbers, keptIdFromStrings } from "./ids";
import { inferColumn, isIntegerIdColumn } from "./infer";
import {
  allBelow,
  anyMarked,
  cellsOf,
  firstMode,
  grown,
  type Mode,
  type PageLayout,
  pageMode,
  scatter,
  scatterWithDefs,
  spreadWithDefs,
  toText,
  writeSafeInt64,
} from "./parquet-page-values";
import { RowDictionary } from "./row-dictionary";
import type { ProvisionalColumn } from "./types";

/**
 * A page dictionary as this column stores it, mapped once in the mode it was mapped for: per
 * entry, the code (string mode, -1 = missing marker) or the number (other modes). The first
 * `size` entries are mapped: a dictionary may grow between pages (ByteStrings), appending only.
 */
interface MappedDictionary {
  source: ArrayLike<unknown>;
  mode: Mode;
  size: number;
  codes: Int32Array;
  numbers: Float64Array;
  /** 1 for entries that do not fit a numeric mode (a BigInt beyond 2^53...), when `misfits` > 0:
   * pages using one go cell by cell. */
  misfit: Uint8Array;
  misfits: number;
  /** codes[k] === k for every mapped entry (a ByteStrings dictionary whose values all took
   * codeOfDistinct): a page's indices are then its codes, copied without a look-up each (at a
   * million entries each look-up is a cache miss). */
  identity: boolean;
}

/**
 * Collects one Parquet column into frame storage. The storage follows the values hyparquet
 * produces: numbers and BigInts -> numeric, booleans -> boolean, Dates (dates, timestamps) ->
 * datetime, strings -> dictionary then the same inference as CSV. Anything else (binary, nested
 * lists/structs) and BigInts beyond 2^53 turn the column into strings, so no value is silently
 * rounded or dropped. With `raw` (rawText) every value is kept as the text a CSV export would
 * show: String(n) for numbers, "true"/"false", ISO-8601 for dates.
 *
 * Pages are written without a value per cell where possible: a dictionary-encoded page takes its
 * dictionary mapped once (strings to codes, values to numbers) and copies per row only an index;
 * a typed numeric page is scattered into the Float64Array. Anything unusual goes cell by cell
 * (writeCells), which defines the result: the fast paths must agree with it.
 */
export class ParquetColumn {
  private mode: Mode;
  private values: Float64Array | undefined;
  /** Rows [0, filled) of `values` hold a value or NaN (missing); rows past it are still the
   * allocation's zeros. Pages arrive in row order, so each page fills its own rows, missing ones
   * with NaN, and only gaps (pages that stored nothing) are filled apart: no pass over the whole
   * array, which cost as much as a column's writes. */
  private filled = 0;
  private strings: RowDictionary | undefined;
  private mapped: MappedDictionary | undefined;

  constructor(
    readonly name: string,
    private readonly rows: number,
    private readonly raw = false,
  ) {
    this.mode = raw ? "string" : "empty";
  }

  /**
   * Writes values from `rowStart`: without `layout`, one per row (null or undefined = missing,
   * as hyparquet's chunks); with it, a page as decoded (see PageLayout).
   */
  write(rowStart: number, values: ArrayLike<unknown>, layout?: PageLayout): void {
    // Typed-array writes past the end are silently dropped (or throw, for .set): say what it is.
    if (rowStart < 0 || rowStart + (layout?.rows ?? values.length) > this.rows) {
      throw new IngestError(
        "corrupt_parquet",
        `The Parquet file is inconsistent: its row groups hold more rows than the ${this.rows} its footer declares.`,
      );
    }
    if (!layout) {
      this.writeCells(rowStart, values);
      return;
    }
    if (this.mode === "empty") this.mode = pageMode(values, layout);
    if (this.mode === "empty") return; // no value present: all missing so far
    if (this.mode !== "string") this.fillTo(rowStart);
    const done = layout.dictionary ? this.writeIndexed(rowStart, values, layout) : this.writeTyped(rowStart, values, layout);
    if (!done) this.writeCells(rowStart, cellsOf(values, layout));
    else if (this.mode !== "string") this.filled = Math.max(this.filled, rowStart + layout.rows);
  }

  /** The column with rows [0, rows) read, as it stands (RowsRead): string codes settled into
   * their final order; undefined while nothing is stored (all missing so far). */
  soFar(rows: number): ProvisionalColumn | undefined {
    const { name } = this;
    if (this.mode === "string") return this.strings && { name, stores: "codes", data: this.strings.settle(rows) };
    if (this.values) this.fillTo(rows);
    return this.values && { name, stores: "values", data: this.values };
  }

  finish(): Column {
    const { name } = this;
    if (this.mode === "string") {
      const b = (this.strings ??= new RowDictionary(this.rows)); // raw and never written: all missing
      const codes = b.finishInRowOrder();
      if (name === ID_COLUMN) return keptIdFromStrings(b.dictionary, codes, this.rows);
      if (this.raw) return { name, kind: "categorical", storage: "dictionary", codes, dictionary: b.dictionary };
      return inferColumn(name, b.dictionary, codes, b.missingCount, this.rows);
    }
    const values = this.numbers();
    this.fillTo(this.rows);
    if (name === ID_COLUMN) return keptIdFromNumbers(values);
    if (this.mode === "boolean" || this.mode === "datetime") return { name, kind: this.mode, storage: "numeric", values };
    return { name, kind: isIntegerIdColumn(name, values) ? "id" : "numeric", storage: "numeric", values };
  }

  /** One value per row, null or undefined = missing: the reference for the fast paths. */
  private writeCells(rowStart: number, data: ArrayLike<unknown>): void {
    if (this.mode === "empty") this.mode = firstMode(data);
    if (this.mode === "empty") return; // all null so far
    if (this.mode === "number" && (data instanceof Float64Array || data instanceof Float32Array || data instanceof Int32Array)) {
      this.fillTo(rowStart);
      this.numbers().set(data, rowStart); // required (null-free) numeric chunk: one copy
      this.filled = Math.max(this.filled, rowStart + data.length);
      return;
    }
    // every row of the chunk initialized (missing ones NaN) before any is written
    if (this.mode !== "string") this.fillTo(rowStart + data.length);
    for (let i = 0; i < data.length; i++) {
      const v = data[i];
      if (v === null || v === undefined) continue;
      if (this.mode !== "string") {
        const x = this.asNumber(v);
        if (x !== undefined) {
          this.numbers()[rowStart + i] = x;
          continue;
        }
        this.toStrings();
      }
      this.stringStore().setAt(rowStart + i, toText(v));
    }
  }

  /** A dictionary-encoded page: per row, the mapped entry. False (nothing written) when the
   * page uses an entry that does not fit the column's mode, or an index past the dictionary. */
  private writeIndexed(rowStart: number, indices: ArrayLike<unknown>, layout: PageLayout): boolean {
    const map = this.mapDictionary(layout.dictionary!, layout.distinct === true);
    const idx = indices as ArrayLike<number>;
    if (!allBelow(idx, map.size)) return false;
    if (map.misfits > 0 && anyMarked(idx, map.misfit)) return false;
    const { rows, defs } = layout;
    if (this.mode === "string") this.stringStore().setIndexed(rowStart, rows, defs, idx, map.identity ? undefined : map.codes);
    else if (defs) scatterWithDefs(this.numbers(), rowStart, rows, defs, idx, map.numbers);
    else scatter(this.numbers(), rowStart, idx, map.numbers);
    return true;
  }

  /** A plain page of a numeric column, present values packed. False when a value does not fit
   * (what was written so far is what writeCells writes again). */
  private writeTyped(rowStart: number, values: ArrayLike<unknown>, layout: PageLayout): boolean {
    if (this.mode === "string") {
      const strings = this.stringStore();
      const { defs } = layout;
      for (let i = 0, j = 0; i < layout.rows; i++) {
        if (defs && !defs[i]) continue;
        const v = values[j++];
        if (v !== null && v !== undefined) strings.setAt(rowStart + i, toText(v));
      }
      return true;
    }
    const out = this.numbers();
    const { defs } = layout;
    const typed = this.mode === "number" && (values instanceof Float64Array || values instanceof Float32Array || values instanceof Int32Array);
    if (typed && !defs) {
      out.set(values, rowStart);
      return true;
    }
    if (typed && defs) {
      spreadWithDefs(out, rowStart, layout.rows, defs, values);
      return true;
    }
    if (this.mode === "number" && values instanceof BigInt64Array && writeSafeInt64(out, rowStart, values, layout)) return true;
    for (let i = 0, j = 0; i < layout.rows; i++) {
      if (defs && !defs[i]) {
        out[rowStart + i] = Number.NaN;
        continue;
      }
      const x = this.asNumber(values[j++]);
      if (x === undefined) return false;
      out[rowStart + i] = x;
    }
    return true;
  }

  /** The page's dictionary in this column's current mode, mapped as far as it goes. */
  private mapDictionary(dictionary: ArrayLike<unknown>, distinct: boolean): MappedDictionary {
    let map = this.mapped;
    if (map?.source !== dictionary || map.mode !== this.mode) {
      const none = { codes: new Int32Array(0), numbers: new Float64Array(0), misfit: new Uint8Array(0) };
      map = this.mapped = { source: dictionary, mode: this.mode, size: 0, misfits: 0, identity: this.mode === "string", ...none };
    }
    const n = dictionary.length;
    if (map.size === n) return map;
    // grown by doubling: a ByteStrings dictionary gains entries page after page
    const capacity = Math.max(n, 2 * map.size);
    if (this.mode === "string") {
      if (n > map.codes.length) map.codes = grown(map.codes, new Int32Array(capacity), map.size);
      this.mapCodes(map, dictionary, distinct, n);
    } else {
      if (n > map.numbers.length) {
        map.numbers = grown(map.numbers, new Float64Array(capacity), map.size);
        map.misfit = grown(map.misfit, new Uint8Array(capacity), map.size);
      }
      this.mapNumbers(map, dictionary, n);
    }
    map.size = n;
    return map;
  }

  // mapDictionary's loops, functions of their own: see the note above allBelow.

  /** Entries map.size... up to n as codes (string mode). */
  private mapCodes(map: MappedDictionary, dictionary: ArrayLike<unknown>, distinct: boolean, n: number): void {
    const strings = this.stringStore();
    for (let k = map.size; k < n; k++) {
      const v = dictionary[k];
      if (v === null || v === undefined) map.codes[k] = -1;
      else if (distinct && typeof v === "string" && normalizeCell(v) === v) map.codes[k] = strings.codeOfDistinct(v);
      else map.codes[k] = strings.codeOf(toText(v));
      if (map.codes[k] !== k) map.identity = false;
    }
  }

  /** Entries map.size... up to n as numbers, those that do not fit marked (numeric modes). */
  private mapNumbers(map: MappedDictionary, dictionary: ArrayLike<unknown>, n: number): void {
    for (let k = map.size; k < n; k++) {
      const x = this.asNumber(dictionary[k]);
      if (x !== undefined) map.numbers[k] = x;
      else [map.misfit[k], map.misfits] = [1, map.misfits + 1];
    }
  }

  /** The value in numeric storage if it fits the column's mode, else undefined. */
  private asNumber(v: unknown): number | undefined {
    switch (this.mode) {
      case "number":
        if (typeof v === "number") return v;
        if (typeof v === "bigint") {
          // Number() rounds to nearest, so exactly the BigInts within ±(2^53 - 1) give safe integers
          const x = Number(v);
          return Number.isSafeInteger(x) ? x : undefined;
        }
        return undefined;
      case "boolean":
        return typeof v === "boolean" ? (v ? 1 : 0) : undefined;
      case "datetime":
        return v instanceof Date ? v.getTime() : undefined;
      default:
        return undefined;
    }
  }

  /** The numeric storage, allocated (zeros: rows past `filled` are not initialized yet). */
  private numbers(): Float64Array {
    return (this.values ??= new Float64Array(this.rows));
  }

  /** Rows [filled, end) set to NaN (missing), so that rows before `end` are all initialized. */
  private fillTo(end: number): void {
    if (end <= this.filled) return;
    this.numbers().fill(Number.NaN, this.filled, end);
    this.filled = end;
  }

  private stringStore(): RowDictionary {
    return (this.strings ??= new RowDictionary(this.rows));
  }

  /** Switches to string storage, rewriting what was stored so far as text. */
  private toStrings(): void {
    const b = new RowDictionary(this.rows);
    const old = this.values;
    if (old) {
      for (let i = 0; i < this.filled; i++) {
        const x = old[i];
        if (Number.isNaN(x)) continue;
        b.setAt(i, this.mode === "boolean" ? String(x === 1) : this.mode === "datetime" ? new Date(x).toISOString() : String(x));
      }
    }
    this.values = undefined;
    this.strings = b;
    this.mode = "string";
  }
}
