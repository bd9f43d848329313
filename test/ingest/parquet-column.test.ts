import { describe, expect, it } from "vitest";
import { ParquetColumn } from "../../src/ingest/parquet-column";
import type { Column } from "../../src/ml/frame";

const values = (c: Column) => Array.from((c as { values: Float64Array }).values);

describe("ParquetColumn: rows initialized page by page", () => {
  it("pc-nan-1: rows of no page and missing rows within pages are NaN", () => {
    const c = new ParquetColumn("x", 10);
    c.write(0, new Float64Array(0), { rows: 3, defs: [0, 0, 0] }); // nothing present yet
    c.write(5, Float64Array.of(1, 2), { rows: 3, defs: [1, 0, 1] });
    expect(values(c.finish())).toEqual([NaN, NaN, NaN, NaN, NaN, 1, NaN, 2, NaN, NaN]);
  });

  it("pc-nan-2: a column turned to text takes only the rows written, not storage not yet filled", () => {
    const c = new ParquetColumn("x", 6);
    c.write(0, Float64Array.of(1.5), { rows: 2, defs: [1, 0] });
    c.write(2, ["x"]);
    const col = c.finish() as { codes: Int32Array; dictionary: string[] };
    expect(Array.from(col.codes)).toEqual([0, -1, 1, -1, -1, -1]);
    expect(col.dictionary).toEqual(["1.5", "x"]);
  });

  it("pc-ids-1: pages of a dictionary of distinct strings write their indices as codes, in row order", () => {
    const c = new ParquetColumn("s", 5);
    const dictionary = ["b", "a", "c"];
    c.write(0, Int32Array.of(0, 1), { rows: 2, dictionary, distinct: true });
    c.write(2, Int32Array.of(0, 2), { rows: 3, defs: [1, 0, 1], dictionary, distinct: true });
    const col = c.finish() as { codes: Int32Array; dictionary: string[] };
    expect(Array.from(col.codes)).toEqual([0, 1, 0, -1, 2]);
    expect(col.dictionary).toEqual(["b", "a", "c"]);
  });
});

describe("ParquetColumn: PLAIN INT64 pages", () => {
  it("pc-int64-1: safe integers, negative and at both bounds, as numbers; missing rows NaN", () => {
    const c = new ParquetColumn("n", 5);
    const max = BigInt(Number.MAX_SAFE_INTEGER);
    c.write(0, BigInt64Array.of(-1n, max, -max, -4294967296n), { rows: 5, defs: [1, 1, 0, 1, 1] });
    expect(values(c.finish())).toEqual([-1, Number.MAX_SAFE_INTEGER, NaN, -Number.MAX_SAFE_INTEGER, -4294967296]);
  });

  it("pc-int64-2: a value past 2^53 gives what writing value by value gives", () => {
    const page = new ParquetColumn("n", 3);
    page.write(0, BigInt64Array.of(7n, -(2n ** 53n), 2n ** 62n), { rows: 3 });
    const cells = new ParquetColumn("n", 3);
    cells.write(0, [7n, -(2n ** 53n), 2n ** 62n]);
    expect(page.finish()).toEqual(cells.finish());
  });
});
