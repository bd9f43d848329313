import { describe, expect, it } from "vitest";
import { applyFeaturizer, buildFeaturizer, FLOAT32_MAX, featureKinds } from "../../src/ml/featurize";
import type { Frame } from "../../src/ml/frame";

function num(name: string, values: number[], kind: "numeric" | "boolean" | "datetime" | "id" = "numeric") {
  return { name, kind, storage: "numeric" as const, values: Float64Array.from(values) };
}
function dict(name: string, values: (string | null)[], kind: "categorical" | "text" | "id" = "categorical") {
  const dictionary: string[] = [];
  const codes = Int32Array.from(values, (v) => {
    if (v === null) return -1;
    let c = dictionary.indexOf(v);
    if (c < 0) c = dictionary.push(v) - 1;
    return c;
  });
  return { name, kind, storage: "dictionary" as const, codes, dictionary };
}

const train: Frame = {
  rowCount: 4,
  columns: [
    num("x", [1, NaN, Infinity, -Infinity]),
    dict("color", ["red", "blue", "red", null]),
    num("flag", [1, 0, 0, 1], "boolean"),
    num("const", [5, 5, 5, 5]),
    dict("notes", ["a", "b", "c", "d"], "text"),
    num("rowid", [0, 1, 2, 3], "id"),
    num("label", [0, 1, 0, 1]),
  ],
};

describe("featurizer", () => {
  it("builds a JSON spec with used columns and reasons for dropped ones", () => {
    const spec = buildFeaturizer(train, { labelColumn: "label" });
    expect(JSON.parse(JSON.stringify(spec))).toEqual(spec);
    expect(spec.features.map((f) => f.name)).toEqual(["x", "color", "flag"]);
    const reasons = Object.fromEntries(spec.columns.filter((c) => !c.used).map((c) => [c.name, c.reason]));
    expect(reasons.label).toBe("label column");
    expect(reasons.const).toMatch(/constant/);
    expect(reasons.notes).toMatch(/free text/);
    expect(reasons.rowid).toMatch(/id-like/);
    expect(featureKinds(spec)).toEqual([{ type: "numeric" }, { type: "categorical", cardinality: 2 }, { type: "numeric" }]);
  });

  it("clamps infinities to ±float32 max, keeps NaN for missing", () => {
    const spec = buildFeaturizer(train, { labelColumn: "label" });
    const m = applyFeaturizer(spec, train);
    expect(m.numRows).toBe(4);
    expect(Array.from({ length: 4 }, (_, i) => m.data[i * 3])).toEqual([1, NaN, Math.fround(FLOAT32_MAX), -Math.fround(FLOAT32_MAX)]);
    expect(m.data[1 * 3 + 2]).toBe(0); // flag
  });

  it("maps categories by string at inference; unseen, missing and absent columns are NaN", () => {
    const spec = JSON.parse(JSON.stringify(buildFeaturizer(train, { labelColumn: "label" })));
    const redCode = spec.features[1].vocabulary.indexOf("red");
    const blueCode = spec.features[1].vocabulary.indexOf("blue");
    const infer: Frame = {
      rowCount: 4,
      // different dictionary order, an unseen value, an extra column, and no "x" / "flag" columns
      columns: [dict("color", ["green", "blue", "red", null]), num("extra", [1, 2, 3, 4])],
    };
    const m = applyFeaturizer(spec, infer);
    const color = Array.from({ length: 4 }, (_, i) => m.data[i * 3 + 1]);
    expect(color).toEqual([NaN, blueCode, redCode, NaN]);
    expect(Array.from({ length: 4 }, (_, i) => m.data[i * 3])).toEqual([NaN, NaN, NaN, NaN]);
  });

  it("splits datetimes into varying parts", () => {
    const ms = [Date.UTC(2020, 0, 1), Date.UTC(2021, 5, 15), Date.UTC(2022, 11, 31)];
    const f: Frame = { rowCount: 3, columns: [num("when", ms, "datetime")] };
    const spec = buildFeaturizer(f);
    expect(spec.features.map((x) => x.name)).toEqual(["when.year", "when.month", "when.day", "when.dayofweek", "when.epoch_days"]);
    const m = applyFeaturizer(spec, f);
    expect(Array.from(m.data.subarray(0, 5))).toEqual([2020, 1, 1, 3, 18262]);
    expect(Array.from(m.data.subarray(5, 10))).toEqual([2021, 6, 15, 2, 18793]);
  });

  it("drops an id-like string column and respects inputColumns", () => {
    const ids = Array.from({ length: 30 }, (_, i) => `u${i}`);
    const f: Frame = {
      rowCount: 30,
      columns: [
        dict("user", ids),
        num(
          "a",
          ids.map((_, i) => i % 3),
        ),
        num(
          "b",
          ids.map((_, i) => i % 2),
        ),
      ],
    };
    const spec = buildFeaturizer(f, { inputColumns: ["user", "a"] });
    expect(spec.features.map((x) => x.name)).toEqual(["a"]);
    expect(spec.columns.find((c) => c.name === "user")!.reason).toMatch(/id-like/);
    expect(spec.columns.find((c) => c.name === "b")!.reason).toBe("not in input_columns");
  });
});
