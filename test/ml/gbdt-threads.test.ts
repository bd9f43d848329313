import { availableParallelism } from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import { GbdtThreads, trainerThreads } from "../../src/container/gbdt-threads";
import { GBDT_PARALLEL_MIN_CELLS } from "../../src/core/limits";
import { type GbdtParams, type TrainGbdtInput, trainGbdt } from "../../src/ml/gbdt/train";
import type { ParallelExecutor } from "../../src/ml/parallel";
import { Rng } from "../../src/ml/random";
import { counting } from "./helpers/counting-executor";

/** 6 numeric features (one with missing values) and 2 categoricals; labels for each objective. */
function problem(n: number) {
  const rng = new Rng(5);
  const F = 8;
  const data = new Float32Array(n * F);
  for (let i = 0; i < n; i++) {
    for (let f = 0; f < 6; f++) data[i * F + f] = rng.next() * 2 - 1;
    if (rng.next() < 0.1) data[i * F + 5] = Number.NaN;
    data[i * F + 6] = rng.int(12);
    data[i * F + 7] = rng.int(40);
  }
  const score = Float64Array.from(
    { length: n },
    (_, i) => 2 * data[i * F] - data[i * F + 1] * data[i * F + 2] + 0.3 * (data[i * F + 6] % 3) + 0.02 * data[i * F + 7] + rng.next() - 0.5,
  );
  return {
    data,
    numRows: n,
    numFeatures: F,
    categorical: [0, 0, 0, 0, 0, 0, 1, 1],
    labels: {
      regression: score,
      binary: Float64Array.from(score, (s) => (s > 0.3 ? 1 : 0)),
      multiclass: Float64Array.from(score, (s) => (s < -0.5 ? 0 : s < 0.8 ? 1 : 2)),
    },
    weight: Float64Array.from({ length: n }, () => 0.5 + rng.next()),
  };
}

const pools = [new GbdtThreads(2), new GbdtThreads(3)];
afterAll(() => Promise.all(pools.map((p) => p.close())));

describe("gbdt on threads", () => {
  // large enough for the root and the larger leaves to go to the threads, the smaller ones not
  const n = Math.ceil((6 * GBDT_PARALLEL_MIN_CELLS) / 8);
  const p = problem(n);
  const rows = (a: number, b: number) => Int32Array.from({ length: b - a }, (_, i) => a + i);
  const cases: [string, TrainGbdtInput["params"], boolean][] = [
    ["regression", { objective: "regression" }, false],
    ["weighted regression", { objective: "regression" }, true],
    ["binary, bagging and feature subsampling", { objective: "binary", subsample: 0.7, featureFraction: 0.6 }, false],
    ["multiclass", { objective: "multiclass", numClasses: 3 }, false],
  ];
  for (const [name, params, weighted] of cases) {
    it(`${name}: the model of 2 and 3 threads is one thread's, bit for bit`, () => {
      const objective = params.objective as GbdtParams["objective"];
      const train = (parallel?: ParallelExecutor) =>
        trainGbdt({
          data: p.data,
          numRows: p.numRows,
          numFeatures: p.numFeatures,
          categorical: p.categorical,
          label: p.labels[objective],
          weight: weighted ? p.weight : undefined,
          trainRows: rows(0, n - 2000),
          valRows: rows(n - 2000, n),
          params: { ...params, maxRounds: 12, numLeaves: 15, seed: 3 },
          parallel,
        });
      const one = JSON.stringify(train().model);
      for (const pool of pools) {
        const { executor, seen } = counting(pool);
        expect(JSON.stringify(train(executor).model)).toBe(one);
        expect(seen.runs).toBeGreaterThan(12);
      }
    });
  }

  it("a small table never opens a session on the threads", () => {
    const small = problem(1000);
    const { executor, seen } = counting(pools[0]);
    trainGbdt({ ...small, label: small.labels.binary, params: { objective: "binary", maxRounds: 5 }, parallel: executor });
    expect(seen.opened).toBe(0);
  });
});

describe("the trainer's thread count", () => {
  it("is the vCPUs unless TRAINER_THREADS says otherwise", () => {
    expect(trainerThreads({})).toBe(availableParallelism());
    expect(trainerThreads({ TRAINER_THREADS: "3" })).toBe(3);
  });
  it("refuses a TRAINER_THREADS that is not a whole number of at least 1", () => {
    expect(() => trainerThreads({ TRAINER_THREADS: "0" })).toThrow(/TRAINER_THREADS/);
    expect(() => trainerThreads({ TRAINER_THREADS: "two" })).toThrow(/TRAINER_THREADS/);
  });
});
