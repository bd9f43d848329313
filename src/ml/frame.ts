/**
 * The frame: a table as ingestion hands it to the engine. Columnar, typed arrays only, so it
 * costs little memory and serializes to R2 without a row-by-row pass.
 *
 * Two storage forms cover every semantic kind:
 * - numeric storage (`values`, Float64Array, NaN = missing): numeric, boolean (0/1), datetime
 *   (epoch milliseconds, UTC);
 * - dictionary storage (`codes`, Int32Array, -1 = missing, indexes `dictionary`): categorical,
 *   text, and id-like columns whose values are strings.
 * An id-like column of integers keeps numeric storage.
 */
export type ColumnKind = "numeric" | "boolean" | "datetime" | "categorical" | "text" | "id";

export interface NumericColumn {
  name: string;
  kind: "numeric" | "boolean" | "datetime" | "id";
  storage: "numeric";
  values: Float64Array;
  /** Boolean columns: how the file spelled [false, true] (e.g. ["no", "yes"]), so a boolean label
   * predicts the user's own words. Absent: "false" / "true". */
  booleanLabels?: [string, string];
  /** Datetime columns whose every value was a plain date (2024-01-02): read back as dates. */
  dateOnly?: boolean;
  /**
   * Boolean columns whose file wrote a value more than one way (Yes, yes, Y): each row's own
   * spelling (codes into `dictionary`, -1 = missing), so rows read back exactly as they were.
   */
  spellings?: { codes: Int32Array; dictionary: string[] };
}

/** A column of codes into a dictionary of strings (categorical and text columns). */
export interface DictionaryColumn {
  name: string;
  kind: "categorical" | "text" | "id";
  storage: "dictionary";
  codes: Int32Array;
  dictionary: string[];
}

export type Column = NumericColumn | DictionaryColumn;

export interface Frame {
  rowCount: number;
  columns: Column[];
}

export function findColumn(frame: Frame, name: string): Column | undefined {
  return frame.columns.find((c) => c.name === name);
}

/** The value of one cell as a plain JS value (null when missing), for previews and look-ups. */
export function cellValue(column: Column, row: number): string | number | boolean | null {
  if (column.storage === "dictionary") {
    const code = column.codes[row];
    return code < 0 ? null : column.dictionary[code];
  }
  const v = column.values[row];
  if (Number.isNaN(v)) return null;
  if (column.kind === "boolean") return v !== 0;
  if (column.kind === "datetime") return new Date(v).toISOString();
  return v;
}

/** Rows [start, end) of a frame, sharing its storage (views, no copy). */
export function frameRows(frame: Frame, start: number, end: number): Frame {
  return {
    rowCount: end - start,
    columns: frame.columns.map((c) =>
      c.storage === "numeric"
        ? {
            ...c,
            values: c.values.subarray(start, end),
            ...(c.spellings && { spellings: { ...c.spellings, codes: c.spellings.codes.subarray(start, end) } }),
          }
        : { ...c, codes: c.codes.subarray(start, end) },
    ),
  };
}

/** The given rows of a frame (row indexes, in the order given), copied: a sample of a large table. */
export function pickRows(frame: Frame, rows: Int32Array): Frame {
  const take = <T extends Float64Array | Int32Array>(a: T): T => {
    const out = new (a.constructor as new (n: number) => T)(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = a[rows[i]];
    return out;
  };
  return {
    rowCount: rows.length,
    columns: frame.columns.map((c) =>
      c.storage === "numeric"
        ? { ...c, values: take(c.values), ...(c.spellings && { spellings: { ...c.spellings, codes: take(c.spellings.codes) } }) }
        : { ...c, codes: take(c.codes) },
    ),
  };
}
