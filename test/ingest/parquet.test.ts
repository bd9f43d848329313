import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readCsv } from "../../src/ingest/csv";
import { nodeCompressors } from "../../src/ingest/node-compressors";
import { readParquet } from "../../src/ingest/parquet";
import { BENCH } from "./helpers";

const read = (name: string) => new Uint8Array(readFileSync(`${BENCH}/${name}`));

describe("readParquet", () => {
  it("agrees with readCsv on the same table (rows, names, kinds, values)", async () => {
    const p = await readParquet(read("cps1988.parquet"), { compressors: nodeCompressors });
    const c = await readCsv(read("cps1988.csv"));
    expect(p.frame.rowCount).toBe(28155);
    expect(p.frame.columns.map((x) => [x.name, x.kind])).toEqual(c.frame.columns.map((x) => [x.name, x.kind]));
    expect(p.frame).toEqual(c.frame);
  });

  it("maps integers to numeric and yes/no strings to boolean", async () => {
    const { frame } = await readParquet(read("fertility.parquet"), { compressors: nodeCompressors });
    expect(frame.rowCount).toBe(254654);
    expect(frame.columns.map((x) => `${x.name}:${x.kind}`)).toEqual([
      "id:id",
      "morekids:boolean",
      "gender1:categorical",
      "gender2:categorical",
      "age:numeric",
      "afam:boolean",
      "hispanic:boolean",
      "other:boolean",
      "work:numeric",
    ]);
  });

  it("accepts an ArrayBuffer", async () => {
    const bytes = read("lending_club.parquet");
    const r = await readParquet(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), { compressors: nodeCompressors });
    expect(r.format).toBe("parquet");
    expect(r.frame.rowCount).toBe(9857);
  });
});
