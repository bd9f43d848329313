import { describe, expect, it } from "vitest";
import { concatFrames } from "../../src/ingest/concat";
import type { Frame } from "../../src/ml/frame";

const ids = (n: number, from = 0) => ({
  name: "id",
  kind: "id" as const,
  storage: "numeric" as const,
  values: Float64Array.from({ length: n }, (_, i) => from + i),
});
const num = (name: string, kind: "id" | "numeric", values: number[]) => ({
  name,
  kind,
  storage: "numeric" as const,
  values: Float64Array.from(values),
});
const cat = (name: string, dictionary: string[], codes: number[]) => ({
  name,
  kind: "categorical" as const,
  storage: "dictionary" as const,
  dictionary,
  codes: Int32Array.from(codes),
});

describe("concatFrames (batch uploads)", () => {
  it("renumbers generated ids and merges dictionaries", () => {
    const a: Frame = { rowCount: 2, columns: [ids(2), cat("c", ["x", "y"], [0, 1])] };
    const b: Frame = { rowCount: 2, columns: [ids(2), cat("c", ["y", "z"], [0, 1])] };
    const f = concatFrames(
      [
        { frame: a, name: "a.csv" },
        { frame: b, name: "b.csv" },
      ],
      true,
    );
    expect(Array.from((f.columns[0] as any).values)).toEqual([0, 1, 2, 3]);
    const c = f.columns[1] as any;
    expect(Array.from(c.codes, (k: number) => c.dictionary[k])).toEqual(["x", "y", "y", "z"]);
  });

  it("widens a column that is id-like in one file and numeric in another to numeric", () => {
    const a: Frame = { rowCount: 2, columns: [ids(2), num("n", "id", [1, 2])] };
    const b: Frame = { rowCount: 2, columns: [ids(2), num("n", "numeric", [5, 5])] };
    const f = concatFrames(
      [
        { frame: a, name: "a.csv" },
        { frame: b, name: "b.csv" },
      ],
      true,
    );
    expect(f.columns[1].kind).toBe("numeric");
    expect(Array.from((f.columns[1] as any).values)).toEqual([1, 2, 5, 5]);
  });

  it("refuses files whose columns differ, naming both", () => {
    const a: Frame = { rowCount: 1, columns: [ids(1), num("n", "numeric", [1])] };
    const b: Frame = { rowCount: 1, columns: [ids(1), num("m", "numeric", [1])] };
    expect(() =>
      concatFrames(
        [
          { frame: a, name: "a.csv" },
          { frame: b, name: "b.csv" },
        ],
        true,
      ),
    ).toThrow(/'b.csv' has columns \[id, m\] but 'a.csv' has \[id, n\]/);
  });

  it("keeps plain dates only when every file had them", () => {
    const day = (dateOnly: boolean) => ({ ...num("d", "numeric", [0]), kind: "datetime" as const, ...(dateOnly ? { dateOnly } : {}) });
    const join = (x: boolean, y: boolean) =>
      concatFrames(
        [
          { frame: { rowCount: 1, columns: [ids(1), day(x)] }, name: "a.csv" },
          { frame: { rowCount: 1, columns: [ids(1), day(y)] }, name: "b.csv" },
        ],
        true,
      ).columns[1] as { dateOnly?: boolean };
    expect(join(true, true).dateOnly).toBe(true);
    expect(join(true, false).dateOnly).toBeUndefined();
  });
});
