import { describe, expect, it } from "vitest";
import { rowIndexesForIds, sliceRows } from "../../src/ingest/columnar";
import { csv } from "./helpers";

describe("rows for preview and look-up", () => {
  it("slices rows as plain objects with JSON values, booleans and plain dates as the file wrote them", async () => {
    const { frame } = await csv("n,c,b,t\n1.5,red,yes,2024-01-01\n,NA,no,\n");
    expect(sliceRows(frame, [1, 0])).toEqual([
      { id: 1, n: null, c: null, b: "no", t: null },
      { id: 0, n: 1.5, c: "red", b: "yes", t: "2024-01-01" },
    ]);
  });

  it("slices a datetime column with times as ISO timestamps", async () => {
    const { frame } = await csv("t,x\n2024-01-01 10:30,1\n2024-01-02,2\n");
    expect(sliceRows(frame, [0, 1]).map((r) => r.t)).toEqual(["2024-01-01T10:30:00.000Z", "2024-01-02T00:00:00.000Z"]);
  });

  it("refuses row indexes outside the frame", async () => {
    const { frame } = await csv("a,b\n1,2\n");
    expect(() => sliceRows(frame, [1])).toThrow(RangeError);
  });

  it('finds rows by numeric id in the order asked, 7 and "7" alike, and lists the ids not found', async () => {
    const { frame } = await csv("id,a\n10,x\n20,y\n30,z\n");
    expect(rowIndexesForIds(frame, [30, "10", 99, "abc", "", 20])).toEqual({ rows: [2, 0, 1], missing: [99, "abc", ""] });
  });

  it("finds rows by string id", async () => {
    const { frame } = await csv("id,a\nk1,x\nk2,y\n");
    expect(rowIndexesForIds(frame, ["k2", "nope", "k1"])).toEqual({ rows: [1, 0], missing: ["nope"] });
  });

  it("finds generated ids", async () => {
    const { frame } = await csv("a,b\nx,1\ny,2\n");
    expect(rowIndexesForIds(frame, ["1", 5])).toEqual({ rows: [1], missing: [5] });
  });
});
