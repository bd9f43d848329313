import { describe, expect, it } from "vitest";
import { csv, kindOf, valuesOf } from "./helpers";

const table = (header: string, values: string[]) => csv(`${header},other\n${values.map((v, i) => `${v},${i % 3}`).join("\n")}\n`);

describe("type inference from distinct values", () => {
  it("reads decimal numbers, signs and exponents as numeric", async () => {
    const { frame } = await table("x", ["1.5", "-2", "3e2", ".5"]);
    expect(kindOf(frame, "x")).toBe("numeric");
    expect(valuesOf(frame, "x")).toEqual([1.5, -2, 300, 0.5]);
  });

  it("keeps leading-zero codes (zip codes) as strings", async () => {
    const { frame } = await table("zip", ["02134", "10001", "02134"]);
    expect(kindOf(frame, "zip")).toBe("categorical");
    expect(valuesOf(frame, "zip")).toEqual(["02134", "10001", "02134"]);
  });

  it("does not read inf or thousands separators as numbers", async () => {
    expect(kindOf((await table("x", ["1", "inf"])).frame, "x")).toBe("categorical");
    expect(kindOf((await table("x", ['"1,000"', "2"])).frame, "x")).toBe("categorical");
  });

  it("reads yes/no, true/false, t/f and y/n in any case as boolean", async () => {
    for (const pair of [
      ["yes", "No"],
      ["TRUE", "false"],
      ["t", "f"],
      ["Y", "n"],
    ]) {
      const { frame } = await table("b", [pair[0], pair[1], pair[0]]);
      expect(kindOf(frame, "b")).toBe("boolean");
      expect(valuesOf(frame, "b")).toEqual([1, 0, 1]);
    }
  });

  it("keeps 0/1 columns numeric, and does not mix boolean spellings", async () => {
    expect(kindOf((await table("b", ["0", "1", "1"])).frame, "b")).toBe("numeric");
    expect(kindOf((await table("b", ["yes", "false"])).frame, "b")).toBe("categorical");
  });

  it("reads ISO-8601 dates and date-times as datetime in epoch ms (zone-less = UTC)", async () => {
    const { frame } = await table("t", ["2024-01-02", "2024-01-02T03:04:05", "2024-01-02 03:04:05.5+02:00", "2024-01-02T00:00:00Z"]);
    expect(kindOf(frame, "t")).toBe("datetime");
    expect(valuesOf(frame, "t")).toEqual([
      Date.UTC(2024, 0, 2),
      Date.UTC(2024, 0, 2, 3, 4, 5),
      Date.UTC(2024, 0, 2, 1, 4, 5, 500),
      Date.UTC(2024, 0, 2),
    ]);
  });

  it("rejects impossible dates", async () => {
    expect(kindOf((await table("t", ["2024-02-30", "2024-01-01"])).frame, "t")).toBe("categorical");
  });

  it("marks unique UUIDs and codes as id, with dictionary storage", async () => {
    const codes = Array.from({ length: 12 }, (_, i) => `CUST-${1000 + i}`);
    expect(kindOf((await table("ref", codes)).frame, "ref")).toBe("id");
    expect(kindOf((await table("ref", codes.slice(0, 3))).frame, "ref")).toBe("categorical");
    const uuids = await table("u", ["0b7e1f0e-7b5a-4d6e-9a51-0c2b9c8d7e61", "1c8f2a1f-8c6b-4e7f-8b62-1d3cad9e8f72"]);
    expect(kindOf(uuids.frame, "u")).toBe("id");
  });

  it("marks unique integers named like an id as id, with numeric storage", async () => {
    const { frame } = await table("customer_id", ["17", "4", "99"]);
    expect(kindOf(frame, "customer_id")).toBe("id");
    expect(valuesOf(frame, "customer_id")).toEqual([17, 4, 99]);
  });

  it("marks a long run of consecutive unique integers (a row counter) as id", async () => {
    const values = Array.from({ length: 150 }, (_, i) => String(i + 1));
    expect(kindOf((await table("Unnamed: 0", values)).frame, "Unnamed: 0")).toBe("id");
    expect(kindOf((await table("rank", values.slice(0, 50))).frame, "rank")).toBe("numeric");
  });

  it("marks many distinct phrases as text", async () => {
    const values = Array.from({ length: 40 }, (_, i) => `review number ${i} says it was fine`);
    expect(kindOf((await table("review", values)).frame, "review")).toBe("text");
  });

  it("leaves few repeated strings categorical", async () => {
    const { frame } = await table("color", ["red", "green", "red", "blue"]);
    expect(kindOf(frame, "color")).toBe("categorical");
    const c = frame.columns.find((x) => x.name === "color")!;
    expect(c.storage === "dictionary" && c.dictionary).toEqual(["red", "green", "blue"]);
  });

  it("makes an all-missing column numeric with NaN everywhere", async () => {
    const { frame } = await table("empty", ["", "NA", ""]);
    expect(kindOf(frame, "empty")).toBe("numeric");
    expect(valuesOf(frame, "empty")).toEqual([null, null, null]);
  });
});
