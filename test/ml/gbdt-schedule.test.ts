import { describe, expect, it } from "vitest";
import type { Frame } from "../../src/ml/frame";
import { defaultLearningRate, defaultSchedule } from "../../src/ml/gbdt/schedule";
import { DEFAULT_GBDT_PARAMS } from "../../src/ml/gbdt/train";
import { gbdtParams } from "../../src/ml/prediction/params";
import { trainPredictionModel } from "../../src/ml/prediction/train";
import { Rng } from "../../src/ml/random";

function regressionFrame(n = 300): Frame {
  const rng = new Rng(5);
  const x = Float64Array.from({ length: n }, () => rng.next());
  const y = Float64Array.from(x, (v) => 3 * v + rng.next());
  return {
    rowCount: n,
    columns: [
      { name: "x", kind: "numeric", storage: "numeric", values: x },
      { name: "y", kind: "numeric", storage: "numeric", values: y },
    ],
  };
}

describe("default boosting schedule", () => {
  it("learning rate 0.1 up to 50k training rows, 0.5 from 150k, linear in between", () => {
    expect(defaultLearningRate(10)).toBe(0.1);
    expect(defaultLearningRate(50_000)).toBe(0.1);
    expect(defaultLearningRate(100_000)).toBeCloseTo(0.3, 12);
    expect(defaultLearningRate(150_000)).toBe(0.5);
    expect(defaultLearningRate(10_000_000)).toBe(0.5);
    for (let n = 50_000; n < 150_000; n += 7_001) expect(defaultLearningRate(n + 1000)).toBeGreaterThan(defaultLearningRate(n));
    expect(DEFAULT_GBDT_PARAMS.numLeaves).toBe(7);
  });

  it("below a million training rows: 7 leaves, patience 30 and the rate by rows (the shared datasets' models)", () => {
    for (const rows of [30, 50_000, 100_000, 183_000, 360_000, 999_999]) {
      expect(defaultSchedule(rows)).toEqual({ learningRate: defaultLearningRate(rows), numLeaves: 7, earlyStoppingRounds: 30 });
    }
  });

  it("from a million training rows: 15 leaves at 0.3, patience 10", () => {
    for (const rows of [1_000_000, 1_800_000, 18_000_000]) {
      expect(defaultSchedule(rows)).toEqual({ learningRate: 0.3, numLeaves: 15, earlyStoppingRounds: 10 });
      const g = gbdtParams(undefined, rows, "classification", 2);
      expect([g.learningRate, g.numLeaves, g.earlyStoppingRounds]).toEqual([0.3, 15, 10]);
    }
  });

  it("a request's learning_rate, num_leaves and early_stopping_rounds win over the large-table schedule", () => {
    const g = gbdtParams({ learning_rate: 0.5, num_leaves: 7, early_stopping_rounds: 30 }, 2_000_000, "classification", 2);
    expect([g.learningRate, g.numLeaves, g.earlyStoppingRounds]).toEqual([0.5, 7, 30]);
  });

  it("small data gets 0.1; an explicit learning_rate wins over the default", () => {
    const f = regressionFrame();
    const params = { max_rounds: 1, early_stopping_rounds: 0, search: "off" as const };
    const dflt = trainPredictionModel(f, { labelColumn: "y", params });
    const explicit = trainPredictionModel(f, { labelColumn: "y", params: { ...params, learning_rate: 0.1 } });
    const half = trainPredictionModel(f, { labelColumn: "y", params: { ...params, learning_rate: 0.5 } });
    expect(dflt.model.trees).toEqual(explicit.model.trees);
    // one round: the same tree, leaf values scaled by the rate (float32 leaves)
    const a = dflt.model.trees[0].leafValue;
    const b = half.model.trees[0].leafValue;
    expect(b.length).toBe(a.length);
    for (let i = 0; i < a.length; i++) expect(b[i]).toBeCloseTo(5 * a[i], 5);
  });
});
