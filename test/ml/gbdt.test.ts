import { describe, expect, it } from "vitest";
import type { GbdtModel } from "../../src/ml/gbdt/model";
import { predict, predictRaw } from "../../src/ml/gbdt/predict";
import { trainGbdt } from "../../src/ml/gbdt/train";
import { accuracy, r2 } from "../../src/ml/metrics";
import { Rng } from "../../src/ml/random";

/** n rows x F features, uniform in [0, 1), deterministic. */
function uniform(n: number, F: number, seed = 1): Float32Array {
  const rng = new Rng(seed);
  return Float32Array.from({ length: n * F }, () => rng.next());
}
const rowsRange = (a: number, b: number) => Int32Array.from({ length: b - a }, (_, i) => a + i);

function binaryProblem(n = 2000) {
  const data = uniform(n, 3);
  const label = Float64Array.from({ length: n }, (_, i) => (data[i * 3] + 0.5 * data[i * 3 + 1] > 0.75 ? 1 : 0));
  return { data, numRows: n, numFeatures: 3, categorical: [0, 0, 0], label };
}

describe("gbdt", () => {
  it("binary objective learns a threshold problem", () => {
    const p = binaryProblem();
    const res = trainGbdt({ ...p, trainRows: rowsRange(0, 1500), valRows: rowsRange(1500, 2000), params: { objective: "binary", maxRounds: 60 } });
    const prob = predict(res.model, p.data.subarray(1500 * 3), 500);
    const pred = Array.from(prob, (q) => (q >= 0.5 ? 1 : 0));
    expect(accuracy(p.label.subarray(1500), pred)).toBeGreaterThan(0.95);
    expect(res.history[res.history.length - 1].trainLoss).toBeLessThan(res.history[0].trainLoss);
  });

  it("regression objective learns a smooth function", () => {
    const n = 2000;
    const data = uniform(n, 2, 2);
    const label = Float64Array.from({ length: n }, (_, i) => Math.sin(6 * data[i * 2]) + data[i * 2 + 1]);
    const res = trainGbdt({
      data,
      numRows: n,
      numFeatures: 2,
      categorical: [0, 0],
      label,
      trainRows: rowsRange(0, 1500),
      params: { objective: "regression", maxRounds: 100 },
    });
    expect(r2(label.subarray(1500), predict(res.model, data.subarray(1500 * 2), 500))).toBeGreaterThan(0.95);
  });

  it("multiclass objective learns three classes", () => {
    const n = 1500;
    const data = uniform(n, 2, 3);
    const label = Float64Array.from({ length: n }, (_, i) => (data[i * 2] < 0.33 ? 0 : data[i * 2 + 1] < 0.5 ? 1 : 2));
    const res = trainGbdt({
      data,
      numRows: n,
      numFeatures: 2,
      categorical: [0, 0],
      label,
      trainRows: rowsRange(0, 1000),
      params: { objective: "multiclass", numClasses: 3, maxRounds: 40 },
    });
    const prob = predict(res.model, data.subarray(1000 * 2), 500);
    const pred = Array.from({ length: 500 }, (_, i) => [0, 1, 2].reduce((b, k) => (prob[i * 3 + k] > prob[i * 3 + b] ? k : b), 0));
    expect(accuracy(label.subarray(1000), pred)).toBeGreaterThan(0.95);
    expect(res.model.trees.length).toBe(res.rounds * 3);
  });

  it("is deterministic for a seed (with row and feature subsampling)", () => {
    const p = binaryProblem(1000);
    const params = { objective: "binary" as const, maxRounds: 20, subsample: 0.7, featureFraction: 0.67, seed: 7 };
    const a = trainGbdt({ ...p, params });
    const b = trainGbdt({ ...p, params });
    const c = trainGbdt({ ...p, params: { ...params, seed: 8 } });
    expect(JSON.stringify(a.model)).toBe(JSON.stringify(b.model));
    expect(JSON.stringify(a.model)).not.toBe(JSON.stringify(c.model));
  });

  it("learns the direction of missing values", () => {
    // y = 1 when x > 0.5 or x is missing: missing must go with the high side
    const n = 2000;
    const rng = new Rng(4);
    const data = new Float32Array(n);
    const label = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const missing = rng.next() < 0.2;
      data[i] = missing ? NaN : rng.next();
      label[i] = missing || data[i] > 0.5 ? 1 : 0;
    }
    const res = trainGbdt({ data, numRows: n, numFeatures: 1, categorical: [0], label, params: { objective: "binary", maxRounds: 20 } });
    const root = res.model.trees[0];
    expect(root.threshold[0]).toBeCloseTo(0.5, 1);
    expect(root.defaultLeft[0]).toBe(0);
    const p = predict(res.model, Float32Array.from([NaN, 0.2, 0.8]), 3);
    expect(p[0]).toBeGreaterThan(0.9);
    expect(p[1]).toBeLessThan(0.1);
  });

  it("finds a categorical split when only a set of categories separates the classes", () => {
    // 12 categories; classes = (code in {1, 4, 6, 9, 11}); no numeric order separates them
    const n = 3000;
    const rng = new Rng(5);
    const positive = new Set([1, 4, 6, 9, 11]);
    const data = Float32Array.from({ length: n }, () => rng.int(12));
    const label = Float64Array.from(data, (c) => (positive.has(c) ? 1 : 0));
    const res = trainGbdt({ data, numRows: n, numFeatures: 1, categorical: [1], label, params: { objective: "binary", maxRounds: 5, numLeaves: 2 } });
    const t = res.model.trees[0];
    expect(t.isCategorical[0]).toBe(1);
    const left = new Set(t.leftCategories[0]);
    const leftIsPositive = left.has(1);
    for (let c = 0; c < 12; c++) expect(left.has(c)).toBe(positive.has(c) === leftIsPositive);
    const p = predict(res.model, Float32Array.from([1, 2, 99]), 3); // 99: unseen code goes right
    expect(p[0]).toBeGreaterThan(0.5);
    expect(p[1]).toBeLessThan(0.5);
  });

  it("stops early when the validation loss stops improving, keeping the best round", () => {
    // pure noise labels: validation loss cannot improve for long
    const n = 2000;
    const data = uniform(n, 3, 6);
    const rng = new Rng(9);
    const label = Float64Array.from({ length: n }, () => (rng.next() < 0.5 ? 1 : 0));
    const res = trainGbdt({
      data,
      numRows: n,
      numFeatures: 3,
      categorical: [0, 0, 0],
      label,
      trainRows: rowsRange(0, 1500),
      valRows: rowsRange(1500, 2000),
      params: { objective: "binary", maxRounds: 500, earlyStoppingRounds: 10 },
    });
    expect(res.stopReason).toBe("early_stopping");
    expect(res.history.length).toBeLessThan(100);
    expect(res.model.trees.length).toBe(res.rounds);
    expect(res.history.length).toBe(res.rounds + 10);
  });

  it("reports every round and stops cleanly when the callback or shouldStop says so", () => {
    const p = binaryProblem(500);
    const seen: number[] = [];
    const a = trainGbdt({ ...p, params: { objective: "binary", maxRounds: 50 }, onIteration: (it) => (seen.push(it.iteration), it.iteration < 5) });
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(a.stopReason).toBe("cancelled");
    let calls = 0;
    const b = trainGbdt({ ...p, params: { objective: "binary", maxRounds: 50 }, shouldStop: () => ++calls > 3 });
    expect(b.stopReason).toBe("cancelled");
    expect(b.history.length).toBe(3);
  });

  it("gives identical predictions from a JSON round-tripped model, with float32 thresholds", () => {
    const p = binaryProblem(1000);
    const res = trainGbdt({ ...p, params: { objective: "binary", maxRounds: 30 } });
    const copy = JSON.parse(JSON.stringify(res.model)) as GbdtModel;
    expect(Array.from(predictRaw(copy, p.data, 1000))).toEqual(Array.from(predictRaw(res.model, p.data, 1000)));
    for (const t of res.model.trees) {
      for (const th of t.threshold) expect(Math.fround(th)).toBe(th);
      expect(t.internalCover.length).toBe(t.left.length);
      expect(t.leafCover.length).toBe(t.leafValue.length);
      expect(t.gain.every((g) => g > 0)).toBe(true);
    }
  });

  it("matches the training scores: model predictions equal the boosted train predictions", () => {
    // a model trained with a validation set predicts its own train rows like the loop did
    const p = binaryProblem(800);
    const res = trainGbdt({ ...p, params: { objective: "binary", maxRounds: 10, earlyStoppingRounds: 0 } });
    const raw = predictRaw(res.model, p.data, 800);
    let ll = 0;
    for (let i = 0; i < 800; i++) {
      const s = raw[i];
      ll += Math.max(s, 0) - p.label[i] * s + Math.log1p(Math.exp(-Math.abs(s)));
    }
    expect(ll / 800).toBeCloseTo(res.history[res.history.length - 1].trainLoss, 6);
  });
});
