import type { Column, Frame } from "../ml/frame";

/**
 * The first `n` rows of a frame as a frame of their own, with each dictionary cut down to the
 * values those rows use (a text column's full dictionary can be megabytes). Stored beside the
 * canonical frame so a preview reads a few kilobytes instead of the whole table.
 */
export function headFrame(frame: Frame, n: number): Frame {
  const rows = Math.min(n, frame.rowCount);
  return { rowCount: rows, columns: frame.columns.map((c) => headColumn(c, rows)) };
}

function headColumn(c: Column, rows: number): Column {
  if (c.storage === "numeric") {
    const spellings = c.spellings && { ...c.spellings, codes: c.spellings.codes.slice(0, rows) };
    return { ...c, values: c.values.slice(0, rows), ...(spellings && { spellings }) };
  }
  const remap = new Map<number, number>();
  const dictionary: string[] = [];
  const codes = new Int32Array(rows);
  for (let i = 0; i < rows; i++) {
    const code = c.codes[i];
    if (code < 0) {
      codes[i] = -1;
      continue;
    }
    let k = remap.get(code);
    if (k === undefined) {
      k = dictionary.length;
      dictionary.push(c.dictionary[code]);
      remap.set(code, k);
    }
    codes[i] = k;
  }
  return { ...c, codes, dictionary };
}
