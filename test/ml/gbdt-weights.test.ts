import { describe, expect, it } from "vitest";
import { baseScore, loss } from "../../src/ml/gbdt/objective";
import { predict } from "../../src/ml/gbdt/predict";
import { trainGbdt } from "../../src/ml/gbdt/train";
import { Rng } from "../../src/ml/random";

const rowsRange = (a: number, b: number) => Int32Array.from({ length: b - a }, (_, i) => a + i);

/** 3 numeric features and a categorical one; labels for each objective. */
function problem(n: number) {
  const rng = new Rng(11);
  const F = 4;
  const data = new Float32Array(n * F);
  for (let i = 0; i < n; i++) {
    for (let f = 0; f < 3; f++) data[i * F + f] = rng.next() * 2 - 1;
    data[i * F + 3] = rng.int(4);
  }
  const z = (i: number) => 2 * data[i * F] - data[i * F + 1] + 0.5 * data[i * F + 3] + rng.next() - 0.5;
  const score = Float64Array.from({ length: n }, (_, i) => z(i));
  return {
    data,
    numRows: n,
    numFeatures: F,
    categorical: [0, 0, 0, 1],
    labels: {
      regression: score,
      binary: Float64Array.from(score, (s) => (s > 0.3 ? 1 : 0)),
      multiclass: Float64Array.from(score, (s) => (s < -0.5 ? 0 : s < 0.8 ? 1 : 2)),
    },
  };
}

describe("gbdt per-row weights", () => {
  const p = problem(3000);
  for (const objective of ["regression", "binary", "multiclass"] as const) {
    it(`${objective}: all-ones weights give the unweighted model exactly`, () => {
      const common = {
        data: p.data,
        numRows: p.numRows,
        numFeatures: p.numFeatures,
        categorical: p.categorical,
        label: p.labels[objective],
        trainRows: rowsRange(0, 2500),
        valRows: rowsRange(2500, 3000),
        params: { objective, numClasses: 3, maxRounds: 60, earlyStoppingRounds: 5, subsample: 0.8, featureFraction: 0.75 },
      };
      const plain = trainGbdt(common);
      const ones = trainGbdt({ ...common, weight: new Float64Array(p.numRows).fill(1) });
      expect(ones.model).toEqual(plain.model);
      expect(ones.history).toEqual(plain.history);
      expect(ones.stopReason).toBe(plain.stopReason);
    });
  }

  it("zero weights: rows with a corrupted label are ignored (base score and trees)", () => {
    const y = Float64Array.from(p.labels.regression);
    const weight = new Float64Array(p.numRows).fill(1);
    for (let i = 0; i < p.numRows; i += 4) {
      y[i] += 50;
      weight[i] = 0;
    }
    const clean = (i: number) => i % 4 !== 0;
    expect(baseScore("regression", y, 1, weight)[0]).toBeCloseTo(
      Math.fround(p.labels.regression.filter((_, i) => clean(i)).reduce((s, v) => s + v, 0) / (0.75 * p.numRows)),
      5,
    );
    const res = trainGbdt({ ...p, label: y, weight, params: { objective: "regression", maxRounds: 100, earlyStoppingRounds: 0 } });
    const pred = predict(res.model, p.data, p.numRows);
    let err = 0;
    let m = 0;
    for (let i = 0; i < p.numRows; i++) {
      if (!clean(i)) continue;
      err += (pred[i] - p.labels.regression[i]) ** 2;
      m++;
    }
    // the noise is U[-0.5, 0.5] (RMSE 0.29): the fit is good, the +50 rows left no trace
    expect(Math.sqrt(err / m)).toBeLessThan(0.4);
  });

  it("larger weights pull a leaf toward their rows (weighted Newton step)", () => {
    // one constant tree: the prediction is the weighted mean of the label
    const label = Float64Array.from({ length: 200 }, (_, i) => (i < 100 ? 0 : 1));
    const weight = Float64Array.from({ length: 200 }, (_, i) => (i < 100 ? 1 : 3));
    const data = new Float32Array(200);
    const res = trainGbdt({ data, numRows: 200, numFeatures: 1, categorical: [0], label, weight, params: { objective: "regression", maxRounds: 1 } });
    expect(predict(res.model, data, 1)[0]).toBeCloseTo(0.75, 6);
  });

  it("early stopping reads the weighted validation loss", () => {
    const weight = Float64Array.from({ length: p.numRows }, (_, i) => 0.5 + (i % 3));
    for (const objective of ["regression", "binary", "multiclass"] as const) {
      const val = rowsRange(2000, 3000);
      const res = trainGbdt({
        ...p,
        label: p.labels[objective],
        weight,
        trainRows: rowsRange(0, 2000),
        valRows: val,
        params: { objective, numClasses: 3, maxRounds: 15, earlyStoppingRounds: 0 },
      });
      const yv = Float64Array.from(val, (r) => p.labels[objective][r]);
      const wv = Float64Array.from(val, (r) => weight[r]);
      const K = objective === "multiclass" ? 3 : 1;
      const last = res.history.at(-1)!.valLoss!;
      expect(last).toBeCloseTo(loss(objective, res.valRaw!, yv, K, undefined, wv), 12);
      expect(last).not.toBeCloseTo(loss(objective, res.valRaw!, yv, K), 6);
    }
  });

  it("negative, non-finite or all-zero weights fail", () => {
    const base = { ...p, label: p.labels.regression, params: { objective: "regression" as const, maxRounds: 2 } };
    const w = (v: number) => Float64Array.from({ length: p.numRows }, (_, i) => (i === 5 ? v : 1));
    expect(() => trainGbdt({ ...base, weight: w(-1) })).toThrow(/finite and >= 0/);
    expect(() => trainGbdt({ ...base, weight: w(NaN) })).toThrow(/finite and >= 0/);
    expect(() => trainGbdt({ ...base, weight: new Float64Array(p.numRows) })).toThrow(/all 0/);
  });
});
