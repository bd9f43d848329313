/**
 * Inference result tables -> response bodies: json, csv or parquet.
 *
 * A table is a column-oriented record of equal-length arrays; its key order is the column order.
 * Missing values are null. Non-finite numbers (NaN, ±Infinity) are written as missing in every
 * format (JSON has no way to write them, so all three agree).
 *
 * - json: the table object itself, serialized.
 * - csv: the bytes papaparse's `unparse` writes (written here, see toCsv): header row, CRLF line
 *   ends, RFC 4180 quoting (fields with a comma, quote, line break or edge space are quoted,
 *   quotes doubled). Missing values are empty fields; an empty string is written `""` so it
 *   stays distinguishable from missing.
 * - parquet: hyparquet-writer (pure JS, Snappy). Column types: strings UTF8, numbers DOUBLE,
 *   booleans BOOLEAN; integer id columns (`integerColumns`, default `["id"]`) INT64 when every
 *   value is a safe integer; a column mixing strings with other values is written as strings.
 *   A column without any value (zero rows, all missing) has no type to infer: `columnTypes` names
 *   it, else it is written as UTF8. All columns are optional (nullable).
 * - list cells (an embedding, a row's neighbour ids and distances) stay arrays in json; csv and
 *   parquet write them as their JSON text (one field, one UTF8 value), which every reader can
 *   parse back without a nested-type schema.
 */
import { parquetWriteBuffer } from "hyparquet-writer";
import type { Cell, ParquetColumnType, ResultTable } from "../model-types/contract";

export const OUTPUT_FORMATS = ["json", "csv", "parquet"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface EncodedOutput {
  body: string | Uint8Array<ArrayBuffer>;
  contentType: string;
}

export interface EncodeOptions {
  /** Parquet type per column, overriding inference (needed for empty columns of a known type). */
  columnTypes?: Record<string, ParquetColumnType>;
  /** Columns written as INT64 when every value is a safe integer (default `["id"]`). */
  integerColumns?: readonly string[];
  /**
   * csv: write the header row (default true). Without it, the rows of a table cut into row
   * ranges encoded apart and joined with CRLF are the whole table's csv, byte for byte.
   */
  csvHeader?: boolean;
}

export const OUTPUT_CONTENT_TYPES: Record<OutputFormat, string> = {
  json: "application/json",
  csv: "text/csv; charset=utf-8",
  parquet: "application/vnd.apache.parquet",
};

export function encodeTable(table: ResultTable, format: OutputFormat, options: EncodeOptions = {}): EncodedOutput {
  const names = Object.keys(table);
  const rowCount = names.length ? table[names[0]].length : 0;
  for (const name of names) {
    if (!Array.isArray(table[name])) throw new TypeError(`column ${name} is not an array`);
    if (table[name].length !== rowCount) throw new RangeError(`column ${name} has ${table[name].length} values, column ${names[0]} has ${rowCount}`);
  }
  switch (format) {
    case "json":
      return { body: JSON.stringify(table), contentType: OUTPUT_CONTENT_TYPES.json };
    case "csv":
      return { body: toCsv(table, names, rowCount, options.csvHeader ?? true), contentType: OUTPUT_CONTENT_TYPES.csv };
    case "parquet":
      return { body: toParquet(table, names, options), contentType: OUTPUT_CONTENT_TYPES.parquet };
    default:
      throw new RangeError(`unknown output format ${String(format)}`);
  }
}

function clean(v: Cell | undefined): Cell {
  if (v === undefined) return null;
  if (typeof v === "number" && !Number.isFinite(v)) return null;
  if (Array.isArray(v)) return v.map((x) => (typeof x === "number" && !Number.isFinite(x) ? null : x));
  return v;
}

/** A cell as csv/parquet hold it: lists as their JSON text. */
function flat(v: Cell): string | number | boolean | null {
  return Array.isArray(v) ? JSON.stringify(v) : v;
}

/**
 * The csv papaparse's `unparse` writes for these options (header row, CRLF, `""` for an empty
 * string, RFC 4180 quoting), written here cell by cell: unparse escapes every cell with a regular
 * expression and four searches, which cost more than the model on a large batch. Kept
 * byte-identical to unparse (test/core/result-csv.test.ts compares the two).
 */
function toCsv(table: ResultTable, names: string[], rowCount: number, header: boolean): string {
  const columns = names.map((n) => table[n]);
  const lines: string[] = [];
  if (header && names.length > 0) lines.push(names.map(csvField).join(","));
  const fields = new Array<string>(columns.length);
  for (let r = 0; r < rowCount; r++) {
    for (let c = 0; c < columns.length; c++) fields[c] = csvField(flat(clean(columns[c][r])));
    lines.push(fields.join(","));
  }
  return lines.join("\r\n");
}

/** What needs quotes in a csv field: a delimiter, a quote, a line break or a byte order mark. */
const CSV_SPECIAL = /[,"\r\n\ufeff]/;

/** One field as unparse writes it: missing empty, `""` for an empty string, quotes doubled inside quotes. */
function csvField(v: string | number | boolean | null): string {
  if (v === null) return "";
  if (typeof v !== "string") return String(v);
  if (v === "" || CSV_SPECIAL.test(v) || v.startsWith(" ") || v.endsWith(" ")) return `"${v.replaceAll('"', '""')}"`;
  return v;
}

type ColumnSource = Parameters<typeof parquetWriteBuffer>[0]["columnData"][number];

function toParquet(table: ResultTable, names: string[], options: EncodeOptions): Uint8Array<ArrayBuffer> {
  const integerColumns = new Set(options.integerColumns ?? ["id"]);
  const columnData: ColumnSource[] = names.map((name) => {
    const values = table[name].map((v) => flat(clean(v)));
    const type = options.columnTypes?.[name] ?? inferType(values, integerColumns.has(name));
    return { name, ...parquetColumn(name, values, type), nullable: true };
  });
  return new Uint8Array(parquetWriteBuffer({ columnData }));
}

function inferType(values: (string | number | boolean | null)[], integerColumn: boolean): ParquetColumnType {
  let strings = 0;
  let numbers = 0;
  let booleans = 0;
  let integers = true;
  for (const v of values) {
    if (v === null) continue;
    if (typeof v === "string") strings++;
    else if (typeof v === "boolean") booleans++;
    else {
      numbers++;
      if (!Number.isSafeInteger(v)) integers = false;
    }
  }
  if (strings > 0 || (numbers > 0 && booleans > 0)) return "string";
  if (booleans > 0) return "boolean";
  if (numbers > 0) return integerColumn && integers ? "int64" : "double";
  return "string";
}

function parquetColumn(name: string, values: (string | number | boolean | null)[], type: ParquetColumnType): Pick<ColumnSource, "data" | "type"> {
  switch (type) {
    case "string":
      return { type: "STRING", data: values.map((v) => (v === null ? null : String(v))) };
    case "boolean":
      return { type: "BOOLEAN", data: values.map((v) => (v === null ? null : typeof v === "boolean" ? v : badValue(name, v, type))) };
    case "double":
      return { type: "DOUBLE", data: values.map((v) => (v === null ? null : typeof v === "number" ? v : badValue(name, v, type))) };
    case "int64":
      return {
        type: "INT64",
        data: values.map((v) => (v === null ? null : typeof v === "number" && Number.isSafeInteger(v) ? BigInt(v) : badValue(name, v, type))),
      };
  }
}

function badValue(name: string, v: string | number | boolean, type: ParquetColumnType): never {
  throw new TypeError(`column ${name}: ${JSON.stringify(v)} is not a ${type} value`);
}
