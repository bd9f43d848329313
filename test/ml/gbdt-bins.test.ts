import { describe, expect, it } from "vitest";
import { applyBins, binCount, computeBins } from "../../src/ml/gbdt/bins";
import { Rng } from "../../src/ml/random";

describe("quantile bins", () => {
  it("bin k+1 holds exactly upper[k-1] < x <= upper[k], edges are float32 and at most 255 value bins", () => {
    const n = 20000;
    const rng = new Rng(12);
    // continuous, heavy repeated values, skewed tail, missing values
    const data = Float32Array.from({ length: n * 3 }, (_, i) => {
      const f = i % 3;
      const u = rng.next();
      if (f === 0) return u * 10 - 5;
      if (f === 1) return u < 0.4 ? 0 : u < 0.5 ? NaN : Math.floor(u * 40);
      return Math.exp(12 * u);
    });
    const bins = computeBins(data, n, 3, [0, 0, 0]);
    const binned = applyBins(data, n, 3, bins);
    for (let f = 0; f < 3; f++) {
      const b = bins[f];
      if (b.kind !== "numeric") throw new Error("numeric expected");
      expect(binCount(b)).toBeLessThanOrEqual(256);
      for (const e of b.upper) expect(Math.fround(e)).toBe(e);
      for (let i = 0; i < n; i++) {
        const x = data[i * 3 + f];
        const k = binned[i * 3 + f];
        if (Number.isNaN(x)) {
          expect(k).toBe(0);
          continue;
        }
        if (k > 1) expect(x > b.upper[k - 2]).toBe(true);
        if (k - 1 < b.upper.length) expect(x <= b.upper[k - 1]).toBe(true);
      }
    }
    // few distinct values: one bin per value
    expect((bins[1] as { upper: number[] }).upper.length).toBe(20); // 0 and 20..39
  });

  it("categorical codes get their own bins, unknown codes the 'other' bin", () => {
    const data = Float32Array.from([0, 3, 3, 7, NaN, 0]);
    const bins = computeBins(data, 6, 1, [1]);
    expect(bins[0]).toEqual({ kind: "categorical", codes: [0, 3, 7] });
    const probe = Float32Array.from([0, 3, 7, NaN, 5, -1, 2.5, 100]);
    expect(Array.from(applyBins(probe, 8, 1, bins))).toEqual([1, 2, 3, 0, 4, 4, 4, 4]);
  });
});
