import { describe, expect, it } from "vitest";
import type { Column } from "../../src/ml/frame";
import { extractLabel, inferTask } from "../../src/ml/label";
import { profileColumn } from "../../src/ml/profile";

const numeric = (values: number[]): Column & { storage: "numeric" } => ({
  name: "y",
  kind: "numeric",
  storage: "numeric",
  values: Float64Array.from(values),
});

/** The task the request-time check infers from the column profile. */
const taskFromProfile = (col: Column) => {
  const p = profileColumn(col);
  return inferTask({ kind: p.type, distinct: p.distinct_count, integers: p.integer_valued });
};

describe("one task-inference rule for the engine and the request-time check", () => {
  it.each([
    ["few integer values", [0, 1, 2, 1, 0, 2], "classification"],
    ["few non-integer values", [0.5, 1.5, 0.5, 1.5, 2.5], "regression"],
    ["many integer values", Array.from({ length: 30 }, (_, i) => i), "regression"],
    ["integers stored as floats", [1, 2, 1, 2, 3], "classification"],
  ])("%s: %s", (_what, values, task) => {
    const col = numeric(values as number[]);
    expect(extractLabel(col, col.values.length).task).toBe(task);
    expect(taskFromProfile(col)).toBe(task);
  });

  it("takes text, categories and booleans as classes and datetimes as quantities", () => {
    expect(inferTask({ kind: "categorical", distinct: 50 })).toBe("classification");
    expect(inferTask({ kind: "boolean", distinct: 2 })).toBe("classification");
    expect(inferTask({ kind: "datetime", distinct: 3 })).toBe("regression");
  });

  it("records integer_valued on numeric columns with values only", () => {
    expect(profileColumn(numeric([1, 2.5])).integer_valued).toBe(false);
    expect(profileColumn(numeric([1, 2])).integer_valued).toBe(true);
    expect(profileColumn(numeric([NaN, NaN])).integer_valued).toBeUndefined();
  });
});
