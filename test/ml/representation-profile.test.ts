import { describe, expect, it } from "vitest";
import { profileFrame } from "../../src/ml/profile";

// The representation keeps the dataset's one column profile (src/ml/profile.ts): its numeric
// statistics must stay exact on values that defeat the naive formulas.
describe("column profile", () => {
  it("keeps std precise for large values with a small spread", () => {
    const offsets = [0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5];
    const values = Float64Array.from(offsets, (d) => 1e9 + d);
    const [p] = profileFrame({ rowCount: values.length, columns: [{ name: "t", kind: "numeric", storage: "numeric", values }] });
    // sample std of 0.5..7.5 step 1 = sqrt(((8^2 - 1) / 12) * 8 / 7) = sqrt(6)
    expect(p.std).toBeCloseTo(Math.sqrt(6), 9);
    expect(p.mean).toBeCloseTo(1e9 + 4, 6);
  });

  it("ignores missing and infinite values in min, max, mean and std", () => {
    const values = Float64Array.from([2, NaN, 4, Infinity, 6, -Infinity]);
    const [p] = profileFrame({ rowCount: 6, columns: [{ name: "x", kind: "numeric", storage: "numeric", values }] });
    expect(p).toMatchObject({ missing_count: 1, min: 2, max: 6, mean: 4 });
    expect(p.std).toBeCloseTo(2, 12);
  });
});
