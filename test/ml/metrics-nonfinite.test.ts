import { describe, expect, it } from "vitest";
import { classificationMetrics, logLoss, mae, r2, regressionMetrics, rmse, rocAuc } from "../../src/ml/metrics";

const finiteOrNull = (v: unknown) => v === null || (typeof v === "number" && Number.isFinite(v));

describe("metrics with non-finite inputs", () => {
  it("a NaN probability gives null log loss and AUC, never NaN", () => {
    const y = [0, 1, 0, 1];
    const prob = [0.2, NaN, 0.3, 0.9];
    expect(logLoss(y, prob, 2)).toBeNull();
    expect(rocAuc(y, prob, 2)).toBeNull();
    const m = classificationMetrics(y, prob, 2);
    expect(Object.values(m).every(finiteOrNull)).toBe(true);
    expect(m.accuracy).not.toBeNull();
  });

  it("multiclass: a NaN probability gives null log loss and AUC", () => {
    const y = [0, 1, 2];
    const prob = [0.8, 0.1, 0.1, 0.1, NaN, 0.1, 0.1, 0.1, 0.8];
    expect(logLoss(y, prob, 3)).toBeNull();
    expect(rocAuc(y, prob, 3)).toBeNull();
    expect(Object.values(classificationMetrics(y, prob, 3)).every(finiteOrNull)).toBe(true);
  });

  it("infinite probabilities are clipped for log loss and still rank for AUC", () => {
    expect(logLoss([0, 1], [-Infinity, Infinity], 2)).toBeCloseTo(1e-15, 12);
    expect(rocAuc([0, 1], [-Infinity, Infinity], 2)).toBe(1);
  });

  it("regression metrics with infinite or NaN predictions are null", () => {
    expect(regressionMetrics([1, 2, 3], [1, Infinity, 3])).toEqual({ r2: null, rmse: null, mae: null });
    expect([r2([1, 2, 3], [1, NaN, 3]), rmse([1, 2], [NaN, 2]), mae([1, 2], [NaN, 2])]).toEqual([null, null, null]);
  });
});
