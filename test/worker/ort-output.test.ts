/** Inference result tables encoded as json, csv and parquet, read back unchanged. */
import { parquetMetadata, parquetReadObjects, parquetSchema } from "hyparquet";
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { encodeTable } from "../../src/inference/output";
import type { ResultTable } from "../../src/model-types/contract";

const table: ResultTable = {
  id: [0, 1, 2, 9_007_199_254_740_991],
  prediction: ["yes", "no, really", 'say "hi"', "é\r\nline"],
  prediction_prob: [0.9, 0.25, null, 1e-300],
  is_anomaly: [true, false, null, true],
};

async function readParquet(body: Uint8Array) {
  const file = body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer;
  return { rows: await parquetReadObjects({ file }), schema: parquetSchema(parquetMetadata(file)) };
}

describe("inference output", () => {
  it("json is the table object itself, column order kept", () => {
    const out = encodeTable(table, "json");
    expect(out.contentType).toBe("application/json");
    expect(Object.keys(JSON.parse(out.body as string))).toEqual(["id", "prediction", "prediction_prob", "is_anomaly"]);
    expect(JSON.parse(out.body as string)).toEqual(table);
  });

  it("csv has a header row, RFC 4180 quoting, and reads back with papaparse", () => {
    const out = encodeTable(table, "csv");
    expect(out.contentType).toBe("text/csv; charset=utf-8");
    const text = out.body as string;
    expect(text.split("\r\n")[0]).toBe("id,prediction,prediction_prob,is_anomaly");
    expect(text).toContain('"say ""hi"""');
    const parsed = Papa.parse<string[]>(text, { newline: "\r\n" });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data).toEqual([
      ["id", "prediction", "prediction_prob", "is_anomaly"],
      ["0", "yes", "0.9", "true"],
      ["1", "no, really", "0.25", "false"],
      ["2", 'say "hi"', "", ""],
      ["9007199254740991", "é\r\nline", "1e-300", "true"],
    ]);
  });

  it("csv keeps an empty string apart from a missing value", () => {
    const text = encodeTable({ a: ["", null], b: [1, 2] }, "csv").body as string;
    expect(text).toBe('a,b\r\n"",1\r\n,2');
  });

  it("parquet reads back with hyparquet: strings UTF8, numbers DOUBLE, integer ids INT64", async () => {
    const out = encodeTable(table, "parquet");
    expect(out.contentType).toBe("application/vnd.apache.parquet");
    const { rows, schema } = await readParquet(out.body as Uint8Array);
    expect(schema.children.map((c) => [c.element.name, c.element.type, c.element.converted_type])).toEqual([
      ["id", "INT64", undefined],
      ["prediction", "BYTE_ARRAY", "UTF8"],
      ["prediction_prob", "DOUBLE", undefined],
      ["is_anomaly", "BOOLEAN", undefined],
    ]);
    expect(rows.map((r) => ({ ...r, id: Number(r.id) }))).toEqual(
      Array.from({ length: 4 }, (_, i) => Object.fromEntries(Object.entries(table).map(([k, v]) => [k, v[i]]))),
    );
  });

  it("parquet writes string ids as UTF8 and non-integer numbers as DOUBLE", async () => {
    const { rows, schema } = await readParquet(encodeTable({ id: ["a-1", "b-2"], effect: [1, 2.5] }, "parquet").body as Uint8Array);
    expect(schema.children.map((c) => c.element.type)).toEqual(["BYTE_ARRAY", "DOUBLE"]);
    expect(rows).toEqual([
      { id: "a-1", effect: 1 },
      { id: "b-2", effect: 2.5 },
    ]);
  });

  it("zero rows: header-only csv, typed empty parquet, empty json columns", async () => {
    const empty: ResultTable = { id: [], prediction: [] };
    expect(encodeTable(empty, "csv").body).toBe("id,prediction");
    expect(encodeTable(empty, "json").body).toBe('{"id":[],"prediction":[]}');
    const { rows, schema } = await readParquet(
      encodeTable(empty, "parquet", { columnTypes: { id: "int64", prediction: "double" } }).body as Uint8Array,
    );
    expect(rows).toEqual([]);
    expect(schema.children.map((c) => c.element.type)).toEqual(["INT64", "DOUBLE"]);
  });

  it("non-finite numbers are missing in every format", async () => {
    const t: ResultTable = { v: [NaN, Infinity, 1] };
    expect(JSON.parse(encodeTable(t, "json").body as string)).toEqual({ v: [null, null, 1] });
    expect(encodeTable(t, "csv").body).toBe("v\r\n\r\n\r\n1");
    expect((await readParquet(encodeTable(t, "parquet").body as Uint8Array)).rows).toEqual([{ v: null }, { v: null }, { v: 1 }]);
  });

  it("rejects columns of different lengths", () => {
    expect(() => encodeTable({ a: [1, 2], b: [1] }, "json")).toThrow(/column b has 1 values/);
  });
});
