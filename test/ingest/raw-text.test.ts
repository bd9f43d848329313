import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readCsv } from "../../src/ingest/csv";
import { nodeCompressors } from "../../src/ingest/node-compressors";
import { readParquet } from "../../src/ingest/parquet";
import { ParquetColumn } from "../../src/ingest/parquet-column";
import { BENCH, utf8, valuesOf } from "./helpers";

describe("rawText: every column as its normalized strings, no inference", () => {
  it("CSV: boolean, numeric with NA, datetime and categorical columns all come back as text", async () => {
    const text = "flag,amount,when,color,user_id\nyes, 1.50 ,2024-01-02,red,7\nno,NA,2024-03-04T05:06:07Z,blue,8\nYes,3,,red,9\n";
    const { frame, idGenerated } = await readCsv(utf8(text), { rawText: true });
    expect(idGenerated).toBe(true);
    expect(frame.columns.map((c) => [c.name, c.kind, c.storage])).toEqual([
      ["id", "id", "numeric"],
      ...["flag", "amount", "when", "color", "user_id"].map((n) => [n, "categorical", "dictionary"]),
    ]);
    expect(valuesOf(frame, "id")).toEqual([0, 1, 2]);
    expect(valuesOf(frame, "flag")).toEqual(["yes", "no", "Yes"]);
    expect(valuesOf(frame, "amount")).toEqual(["1.50", null, "3"]);
    expect(valuesOf(frame, "when")).toEqual(["2024-01-02", "2024-03-04T05:06:07Z", null]);
    expect(valuesOf(frame, "color")).toEqual(["red", "blue", "red"]);
    expect(valuesOf(frame, "user_id")).toEqual(["7", "8", "9"]);
  });

  it("CSV: keeps the file's id column as usual", async () => {
    const { frame, idGenerated } = await readCsv(utf8("x,id\n1,10\n2,20\n"), { rawText: true });
    expect(idGenerated).toBe(false);
    expect(frame.columns.map((c) => [c.name, c.kind, c.storage])).toEqual([
      ["id", "id", "numeric"],
      ["x", "categorical", "dictionary"],
    ]);
    expect(valuesOf(frame, "id")).toEqual([10, 20]);
  });

  it("Parquet: the same strings as the CSV export of the same table, the id column as usual", async () => {
    const read = (name: string) => new Uint8Array(readFileSync(`${BENCH}/${name}`));
    const p = await readParquet(read("cps1988.parquet"), { compressors: nodeCompressors, rawText: true });
    const c = await readCsv(read("cps1988.csv"), { rawText: true });
    expect(p.frame.columns.map((x) => [x.name, x.kind])).toEqual([["id", "id"], ...p.frame.columns.slice(1).map((x) => [x.name, "categorical"])]);
    expect(p.frame).toEqual(c.frame);
    expect(valuesOf(p.frame, "wage").slice(0, 2)).toEqual(["354.94", "123.46"]);
    expect(valuesOf(p.frame, "smsa").slice(0, 2)).toEqual(["yes", "yes"]);
  });

  it("Parquet column: booleans, dates, numbers and BigInts as a CSV export shows them", () => {
    const raw = (data: ArrayLike<unknown>) => {
      const column = new ParquetColumn("x", data.length, true);
      column.write(0, data);
      const c = column.finish();
      expect([c.kind, c.storage]).toEqual(["categorical", "dictionary"]);
      return valuesOf({ rowCount: data.length, columns: [c] }, "x");
    };
    expect(raw([true, null, false])).toEqual(["true", null, "false"]);
    expect(raw([new Date(Date.UTC(2024, 0, 2, 3, 4, 5)), null])).toEqual(["2024-01-02T03:04:05.000Z", null]);
    expect(raw(Float64Array.of(1.5, NaN, 3))).toEqual(["1.5", null, "3"]);
    expect(raw([10n, -2n])).toEqual(["10", "-2"]);
    expect(raw([" a ", "NA", null])).toEqual(["a", null, null]);
    expect(raw([null, null])).toEqual([null, null]);
  });
});
