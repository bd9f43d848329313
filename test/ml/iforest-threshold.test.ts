import { describe, expect, it } from "vitest";
import { blendLogits, fitBlend, logistic } from "../../src/ml/iforest/blend";
import { anomalyThreshold, MODIFIED_Z_CUT } from "../../src/ml/iforest/threshold";

const above = (s: Float64Array, t: number) => s.filter((x) => x > t).length;

describe("anomaly threshold", () => {
  it("contamination c flags c·N training scores, the cut midway between neighbours", () => {
    const s = Float64Array.from({ length: 100 }, (_, i) => (i * 37) % 100).map((x) => x / 100); // 0 .. 0.99 shuffled
    const t = anomalyThreshold(s, { rule: "contamination", contamination: 0.1 });
    expect(above(s, t)).toBe(10);
    expect(t).toBeCloseTo(0.895, 12);
  });

  it("the modified z-score rule flags only the scores that stand out", () => {
    const bulk = Array.from({ length: 200 }, (_, i) => 0.45 + 0.05 * Math.sin(i));
    const s = Float64Array.from([...bulk, 0.8, 0.85, 0.9]);
    const t = anomalyThreshold(s, { rule: "modified_z", z: MODIFIED_Z_CUT });
    expect(above(s, t)).toBe(3);
    expect(t).toBeGreaterThan(0.5);
    expect(t).toBeLessThan(0.8);
  });

  it("flags nothing when every score is equal", () => {
    const s = new Float64Array(50).fill(0.42);
    const t = anomalyThreshold(s, { rule: "modified_z", z: MODIFIED_Z_CUT });
    expect(above(s, t)).toBe(0);
    expect(t).toBeGreaterThan(0.42);
  });

  it("uses the mean absolute deviation when more than half the scores tie", () => {
    // 60 ties at 0.4 (MAD 0) and a spread of 40: only the far tail is flagged
    const s = Float64Array.from([...new Array(60).fill(0.4), ...Array.from({ length: 39 }, (_, i) => 0.4 + i * 0.001), 0.95]);
    const t = anomalyThreshold(s, { rule: "modified_z", z: MODIFIED_Z_CUT });
    expect(above(s, t)).toBe(1);
  });
});

describe("blend", () => {
  it("puts a row typical on both signals at 0.5 and raises either signal's outliers", () => {
    const forest = Float64Array.from([0.4, 0.45, 0.5, 0.55, 0.6]);
    const errors = Float64Array.from([0.1, 0.2, 0.3, 0.4, 0.5]);
    const p = fitBlend(forest, errors);
    const u = blendLogits(p, Float64Array.from([0.5, 0.9, 0.5]), Float64Array.from([0.3, 0.3, 30]));
    expect(logistic(u[0])).toBeCloseTo(0.5, 12);
    expect(logistic(u[1])).toBeGreaterThan(0.9);
    expect(logistic(u[2])).toBeGreaterThan(0.9);
  });
});
