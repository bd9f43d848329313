/**
 * The csv of a result table (src/inference/output.ts writes it itself, for speed) is byte for
 * byte what papaparse's `unparse` wrote with the same options before: on awkward strings, numbers,
 * booleans, missing and non-finite values, list cells, with and without the header, and on zero
 * rows.
 */
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { encodeTable } from "../../src/inference/output";
import { Rng } from "../../src/ml/random";
import type { Cell, ResultTable } from "../../src/model-types/contract";

/** The former encoder: cells cleaned (non-finite as missing, lists as JSON text), then unparse. */
function unparsed(table: ResultTable, header = true): string {
  const names = Object.keys(table);
  const rows = names.length ? table[names[0]].length : 0;
  const finite = (x: unknown) => (typeof x === "number" && !Number.isFinite(x) ? null : x);
  const cell = (v: Cell | undefined) => (v === undefined ? null : Array.isArray(v) ? JSON.stringify(v.map(finite)) : finite(v));
  const data = Array.from({ length: rows }, (_, r) => names.map((n) => cell(table[n][r])));
  const csv = Papa.unparse({ fields: names, data }, { newline: "\r\n", header, quotes: (value: unknown) => value === "" });
  return rows === 0 && csv.endsWith("\r\n") ? csv.slice(0, -2) : csv;
}

const awkward = [
  "",
  " ",
  "a",
  " lead",
  "trail ",
  'say "hi"',
  '"',
  "a,b",
  "line\nbreak",
  "cr\rhere",
  "\r\n",
  "\ufeffbom",
  "é ü 中",
  "=1+1",
  "null",
  "1e5",
  "\t",
];

function randomTable(seed: number, rows: number): ResultTable {
  const rng = new Rng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(rng.next() * xs.length)];
  const numbers = [0, -0, 1, -1.5, 0.1 + 0.2, 1e21, 1e-7, 123456789.123, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER];
  const any = (): Cell =>
    pick<() => Cell>([() => pick(awkward), () => pick(numbers), () => rng.next() < 0.5, () => null, () => [pick(numbers), pick(awkward), null]])();
  return {
    id: Array.from({ length: rows }, (_, i) => i),
    prediction: Array.from({ length: rows }, () => pick(awkward)),
    prediction_prob: Array.from({ length: rows }, () => pick(numbers)),
    mixed: Array.from({ length: rows }, any),
  };
}

describe("result csv", () => {
  it("is unparse's bytes on awkward cells", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const table = randomTable(seed, 200);
      expect(encodeTable(table, "csv").body).toBe(unparsed(table));
    }
  });

  it("is unparse's bytes without the header row", () => {
    const table = randomTable(99, 300);
    expect(encodeTable(table, "csv", { csvHeader: false }).body).toBe(unparsed(table, false));
  });

  it("is unparse's bytes for awkward column names", () => {
    const table: ResultTable = Object.fromEntries(awkward.map((name, i) => [name, [i, null]]));
    expect(encodeTable(table, "csv").body).toBe(unparsed(table));
  });

  it("is unparse's bytes on zero rows, with the header and without", () => {
    const empty: ResultTable = { id: [], prediction: [] };
    expect(encodeTable(empty, "csv").body).toBe(unparsed(empty));
    expect(encodeTable(empty, "csv", { csvHeader: false }).body).toBe(unparsed(empty, false));
  });
});
