import type { Column, Frame } from "../ml/frame";
import { IngestError } from "./errors";

export interface NamedFrame {
  frame: Frame;
  /** The file the frame came from, for error messages. */
  name: string;
}

/**
 * Several files of one dataset version (batch upload) → one frame. They must have the same
 * columns with the same kinds. Generated row ids are renumbered over the whole table; ids kept
 * from the files must stay unique across them.
 */
export function concatFrames(parts: NamedFrame[], idGenerated: boolean): Frame {
  const [first, ...rest] = parts;
  const names = first.frame.columns.map((c) => c.name);
  for (const p of rest) {
    const other = p.frame.columns.map((c) => c.name);
    if (other.join("\u0000") !== names.join("\u0000")) {
      throw new IngestError(
        "column_mismatch",
        `File '${p.name}' has columns [${other.join(", ")}] but '${first.name}' has [${names.join(", ")}]; all files of a batch upload must have the same columns in the same order.`,
      );
    }
  }
  const rowCount = parts.reduce((s, p) => s + p.frame.rowCount, 0);
  const columns = names.map((name, ci) => {
    const cols = parts.map((p) => p.frame.columns[ci]);
    if (ci === 0 && name === "id" && idGenerated) return sequentialIds(rowCount);
    const col = joinColumn(cols, parts);
    if (ci === 0 && name === "id") assertUnique(col);
    return col;
  });
  return { rowCount, columns };
}

function joinColumn(cols: Column[], parts: NamedFrame[]): Column {
  const head = cols[0];
  // A numeric column that looks like an id in one file (unique integers) and like plain numbers
  // in another is numbers: the wider kind wins. Other kind changes are real mismatches.
  const numericKinds = new Set(cols.map((c) => c.kind));
  const widenToNumeric = head.storage === "numeric" && numericKinds.size === 2 && numericKinds.has("id") && numericKinds.has("numeric");
  const mismatch = widenToNumeric ? -1 : cols.findIndex((c) => c.storage !== head.storage || (c.storage === "numeric" && c.kind !== head.kind));
  if (mismatch >= 0) {
    throw new IngestError(
      "column_mismatch",
      `Column '${head.name}' is ${head.kind} in '${parts[0].name}' but ${cols[mismatch].kind} in '${parts[mismatch].name}'.`,
    );
  }
  if (head.storage === "numeric") {
    const values = new Float64Array(cols.reduce((s, c) => s + (c as typeof head).values.length, 0));
    let at = 0;
    for (const c of cols as (typeof head)[]) {
      values.set(c.values, at);
      at += c.values.length;
    }
    if (widenToNumeric) return { name: head.name, kind: "numeric", storage: "numeric", values };
    const joined = { ...head, values };
    // Plain dates only if every file had plain dates (one file with times shows them all with times).
    if (!cols.every((c) => (c as typeof head).dateOnly)) delete joined.dateOnly;
    // Spellings of one file index its own dictionary: not carried over (the labels still are).
    delete joined.spellings;
    return joined;
  }
  // Dictionary columns: one merged dictionary, codes remapped per file.
  const dictionary: string[] = [];
  const index = new Map<string, number>();
  const codes = new Int32Array(cols.reduce((s, c) => s + (c.storage === "dictionary" ? c.codes.length : 0), 0));
  let at = 0;
  for (const c of cols) {
    if (c.storage !== "dictionary") continue;
    const remap = c.dictionary.map((s) => {
      let code = index.get(s);
      if (code === undefined) {
        code = dictionary.length;
        dictionary.push(s);
        index.set(s, code);
      }
      return code;
    });
    for (let i = 0; i < c.codes.length; i++) codes[at + i] = c.codes[i] < 0 ? -1 : remap[c.codes[i]];
    at += c.codes.length;
  }
  // A column that is categorical in one file and text in another is the wider kind overall.
  const kind = cols.some((c) => c.kind === "text") ? "text" : head.kind;
  return { name: head.name, kind: kind as "categorical" | "text" | "id", storage: "dictionary", codes, dictionary };
}

function sequentialIds(rowCount: number): Column {
  const values = new Float64Array(rowCount);
  for (let i = 0; i < rowCount; i++) values[i] = i;
  return { name: "id", kind: "id", storage: "numeric", values };
}

function assertUnique(col: Column): void {
  const seen = new Set<string | number>();
  const n = col.storage === "numeric" ? col.values.length : col.codes.length;
  for (let i = 0; i < n; i++) {
    const v = col.storage === "numeric" ? col.values[i] : col.codes[i];
    if (seen.has(v)) {
      const shown = col.storage === "numeric" ? v : col.dictionary[v as number];
      throw new IngestError("bad_id_column", `The id ${shown} appears in more than one file of the batch; ids must be unique.`);
    }
    seen.add(v);
  }
}
