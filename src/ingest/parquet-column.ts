import type { Column } from "../ml/frame";
import { DictionaryBuilder } from "./dictionary-builder";
import { IngestError } from "./errors";
import { ID_COLUMN, keptIdFromNumbers, keptIdFromStrings } from "./ids";
import { inferColumn, isIntegerIdColumn } from "./infer";

type Mode = "empty" | "number" | "boolean" | "datetime" | "string";

/**
 * Collects one Parquet column from hyparquet's chunks into frame storage. The storage follows the
 * values hyparquet produces: numbers and BigInts -> numeric, booleans -> boolean, Dates (dates,
 * timestamps) -> datetime, strings -> dictionary then the same inference as CSV. Anything else
 * (binary, nested lists/structs) and BigInts beyond 2^53 turn the column into strings, so no
 * value is silently rounded or dropped. With `raw` (rawText) every value is kept as the text a CSV
 * export would show: String(n) for numbers, "true"/"false", ISO-8601 for dates.
 */
export class ParquetColumn {
  private mode: Mode;
  private values: Float64Array | undefined;
  private strings: DictionaryBuilder | undefined;

  constructor(
    readonly name: string,
    private readonly rows: number,
    private readonly raw = false,
  ) {
    this.mode = raw ? "string" : "empty";
  }

  write(rowStart: number, data: ArrayLike<unknown>): void {
    // Typed-array writes past the end are silently dropped (or throw, for .set): say what it is.
    if (rowStart < 0 || rowStart + data.length > this.rows) {
      throw new IngestError(
        "corrupt_parquet",
        `The Parquet file is inconsistent: its row groups hold more rows than the ${this.rows} its footer declares.`,
      );
    }
    if (this.mode === "empty") this.mode = firstMode(data);
    if (this.mode === "empty") return; // all null so far
    if (this.mode === "string") this.strings ??= DictionaryBuilder.forRows(this.rows);
    if (this.mode === "number" && (data instanceof Float64Array || data instanceof Float32Array || data instanceof Int32Array)) {
      this.numbers().set(data, rowStart); // required (null-free) numeric chunk: one copy
      return;
    }
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
      this.strings!.setAt(rowStart + i, toText(v));
    }
  }

  finish(): Column {
    const { name } = this;
    if (this.mode === "string") {
      const b = (this.strings ??= DictionaryBuilder.forRows(this.rows)); // raw and never written: all missing
      const codes = b.finishInRowOrder();
      if (name === ID_COLUMN) return keptIdFromStrings(b.dictionary, codes, this.rows);
      if (this.raw) return { name, kind: "categorical", storage: "dictionary", codes, dictionary: b.dictionary };
      return inferColumn(name, b.dictionary, codes, b.missingCount, this.rows);
    }
    const values = this.numbers();
    if (name === ID_COLUMN) return keptIdFromNumbers(values);
    if (this.mode === "boolean" || this.mode === "datetime") return { name, kind: this.mode, storage: "numeric", values };
    return { name, kind: isIntegerIdColumn(name, values) ? "id" : "numeric", storage: "numeric", values };
  }

  /** The value in numeric storage if it fits the column's mode, else undefined. */
  private asNumber(v: unknown): number | undefined {
    switch (this.mode) {
      case "number":
        if (typeof v === "number") return v;
        if (typeof v === "bigint" && v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(-Number.MAX_SAFE_INTEGER)) return Number(v);
        return undefined;
      case "boolean":
        return typeof v === "boolean" ? (v ? 1 : 0) : undefined;
      case "datetime":
        return v instanceof Date ? v.getTime() : undefined;
      default:
        return undefined;
    }
  }

  private numbers(): Float64Array {
    return (this.values ??= new Float64Array(this.rows).fill(NaN));
  }

  /** Switches to string storage, rewriting what was stored so far as text. */
  private toStrings(): void {
    const b = DictionaryBuilder.forRows(this.rows);
    const old = this.values;
    if (old) {
      for (let i = 0; i < old.length; i++) {
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

function firstMode(data: ArrayLike<unknown>): Mode {
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (v === null || v === undefined) continue;
    if (typeof v === "number" || typeof v === "bigint") return "number";
    if (typeof v === "boolean") return "boolean";
    if (v instanceof Date) return "datetime";
    return "string";
  }
  return "empty";
}

function toText(v: unknown): string {
  if (typeof v === "string") return v;
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return Array.from(v, (b) => b.toString(16).padStart(2, "0")).join("");
  if (typeof v === "object") return JSON.stringify(v, (_, x) => (typeof x === "bigint" ? x.toString() : x));
  return String(v);
}
