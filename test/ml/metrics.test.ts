import { describe, expect, it } from "vitest";
import { accuracy, classificationMetrics, f1, logLoss, mae, r2, regressionMetrics, rmse, rocAuc } from "../../src/ml/metrics";

describe("metrics", () => {
  it("computes regression metrics", () => {
    const y = [1, 2, 3, 4];
    const p = [1, 2, 3, 5];
    expect(r2(y, p)).toBeCloseTo(1 - 1 / 5, 12);
    expect(rmse(y, p)).toBeCloseTo(0.5, 12);
    expect(mae(y, p)).toBeCloseTo(0.25, 12);
  });

  it("computes classification metrics", () => {
    const y = [0, 0, 1, 1];
    const prob = [0.1, 0.6, 0.4, 0.9];
    expect(rocAuc(y, prob, 2)).toBeCloseTo(0.75, 12);
    expect(logLoss(y, prob, 2)).toBeCloseTo(-(Math.log(0.9) + Math.log(0.4) + Math.log(0.4) + Math.log(0.9)) / 4, 12);
    const m = classificationMetrics(y, prob, 2);
    expect(m.accuracy).toBe(0.5);
    expect(m.f1).toBeCloseTo(0.5, 12);
    expect(accuracy([0, 1, 2], [0, 1, 1])).toBeCloseTo(2 / 3, 12);
    expect(f1([0, 1, 2], [0, 1, 1], 3)).toBeCloseTo((1 + 2 / 3 + 0) / 3, 12);
  });

  it("macro one-vs-rest AUC for multiclass", () => {
    const y = [0, 1, 2];
    const prob = [0.8, 0.1, 0.1, 0.1, 0.8, 0.1, 0.1, 0.1, 0.8];
    expect(rocAuc(y, prob, 3)).toBe(1);
  });

  it("returns null, never NaN, on degenerate input", () => {
    expect(r2([3, 3, 3], [3, 2, 3])).toBeNull();
    expect(rocAuc([1, 1], [0.2, 0.9], 2)).toBeNull();
    expect(accuracy([], [])).toBeNull();
    expect(regressionMetrics([], [])).toEqual({ r2: null, rmse: null, mae: null });
    const m = classificationMetrics([0, 0], [0.2, 0.3], 2);
    expect(m.roc_auc).toBeNull();
    expect(Object.values(m).some((v) => Number.isNaN(v))).toBe(false);
  });
});
