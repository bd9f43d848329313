import { describe, expect, it } from "vitest";
import { loss } from "../../src/ml/gbdt/objective";
import { predictRaw } from "../../src/ml/gbdt/predict";
import { TRAIN_LOSS_SAMPLE_ROWS, trainGbdt } from "../../src/ml/gbdt/train";
import { Rng } from "../../src/ml/random";

const rowsRange = (a: number, b: number) => Int32Array.from({ length: b - a }, (_, i) => a + i);

function noisyBinary(n: number) {
  const rng = new Rng(7);
  const data = Float32Array.from({ length: n * 3 }, () => rng.next());
  const label = Float64Array.from({ length: n }, (_, i) => (data[i * 3] + 0.3 * rng.next() > 0.6 ? 1 : 0));
  return { data, numRows: n, numFeatures: 3, categorical: [0, 0, 0], label };
}

describe("gbdt raw scores kept by training", () => {
  it("validation scores are those of the kept rounds after early stopping", () => {
    const p = noisyBinary(3000);
    const val = rowsRange(2000, 3000);
    const res = trainGbdt({
      ...p,
      trainRows: rowsRange(0, 2000),
      valRows: val,
      params: { objective: "binary", maxRounds: 300, earlyStoppingRounds: 5 },
    });
    expect(res.rounds).toBeLessThan(res.history.length);
    const again = predictRaw(res.model, p.data.subarray(2000 * 3), 1000);
    expect(res.valRaw).not.toBeNull();
    for (let i = 0; i < 1000; i++) expect(res.valRaw![i]).toBeCloseTo(again[i], 9);
    expect(res.trainRaw).toBeNull();
  });

  it("training scores match a fresh prediction when every round is kept", () => {
    const p = noisyBinary(1500);
    const res = trainGbdt({ ...p, params: { objective: "binary", maxRounds: 20, earlyStoppingRounds: 0 } });
    const again = predictRaw(res.model, p.data, 1500);
    for (let i = 0; i < 1500; i++) expect(res.trainRaw![i]).toBeCloseTo(again[i], 9);
  });

  it("reports the training loss on a sample of large data, close to the exact loss", () => {
    const n = TRAIN_LOSS_SAMPLE_ROWS * 4;
    const p = noisyBinary(n);
    const res = trainGbdt({ ...p, params: { objective: "binary", maxRounds: 5, earlyStoppingRounds: 0 } });
    const exact = loss("binary", res.trainRaw!, p.label, 1);
    const reported = res.history[res.history.length - 1].trainLoss;
    expect(reported).not.toBe(exact);
    expect(Math.abs(reported - exact) / exact).toBeLessThan(0.02);
  });
});
