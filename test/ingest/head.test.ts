import { describe, expect, it } from "vitest";
import { headFrame } from "../../src/ingest/head";
import { sliceRows } from "../../src/ingest/rows";
import type { Frame } from "../../src/ml/frame";

describe("headFrame", () => {
  const frame: Frame = {
    rowCount: 4,
    columns: [
      { name: "id", kind: "id", storage: "numeric", values: Float64Array.from([0, 1, 2, 3]) },
      { name: "t", kind: "text", storage: "dictionary", dictionary: ["a", "b", "c", "d"], codes: Int32Array.from([3, -1, 3, 0]) },
    ],
  };

  it("keeps the first rows with the same cell values", () => {
    const head = headFrame(frame, 3);
    expect(sliceRows(head, [0, 1, 2])).toEqual(sliceRows(frame, [0, 1, 2]));
  });

  it("keeps only the dictionary values the rows use", () => {
    const t = headFrame(frame, 3).columns[1];
    expect(t.storage === "dictionary" && t.dictionary).toEqual(["d"]);
  });

  it("handles asking for more rows than there are", () => {
    expect(headFrame(frame, 500).rowCount).toBe(4);
  });
});
