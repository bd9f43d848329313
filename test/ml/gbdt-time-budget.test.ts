/**
 * The boosting time budget, on an injected clock: no timing is measured here, the "rounds take
 * time" only because the test's clock says so.
 */
import { describe, expect, it } from "vitest";
import { MlInputError } from "../../src/ml/errors";
import type { Frame } from "../../src/ml/frame";
import { predictRaw } from "../../src/ml/gbdt/predict";
import { type TrainGbdtInput, trainGbdt, trainGbdtSteps } from "../../src/ml/gbdt/train";
import { MAX_TIME_BUDGET_S } from "../../src/ml/prediction/model";
import { trainPredictionModel } from "../../src/ml/prediction/train";
import { Rng } from "../../src/ml/random";

function problem(n = 1200): Omit<TrainGbdtInput, "params"> {
  const rng = new Rng(4);
  const data = Float32Array.from({ length: n * 3 }, () => rng.next());
  const label = Float64Array.from({ length: n }, (_, i) => (data[i * 3] + 0.5 * data[i * 3 + 1] > 0.75 ? 1 : 0));
  const rows = (a: number, b: number) => Int32Array.from({ length: b - a }, (_, i) => a + i);
  return { data, numRows: n, numFeatures: 3, categorical: [0, 0, 0], label, trainRows: rows(0, 1000), valRows: rows(1000, n) };
}

/** A clock that only moves when told: each boosting round "takes" `msPerRound`. */
function roundClock(msPerRound: number) {
  let t = 1000;
  return { now: () => t, onIteration: () => void (t += msPerRound) };
}

describe("boosting time budget", () => {
  it("stops boosting when the next round would end past the budget, and says so", () => {
    const clock = roundClock(10);
    const res = trainGbdt({
      ...problem(),
      params: { objective: "binary", maxRounds: 1000, earlyStoppingRounds: 0 },
      timeBudgetMs: 100,
      ...clock,
    });
    expect(res.stopReason).toBe("time_budget");
    // round k ends at 10 k ms: after round 10 the next one would end at 110 ms > 100 ms
    expect(res.history.length).toBe(10);
    expect(res.rounds).toBe(10);
    expect(res.model.trees.length).toBe(10);
  });

  it("keeps the best validation round so far, like early stopping", () => {
    // pure noise labels: the validation loss stops improving after a few rounds (31-leaf trees
    // overfit the noise quickly)
    const p = problem();
    const rng = new Rng(9);
    const label = Float64Array.from(p.label, () => (rng.next() < 0.5 ? 1 : 0));
    const clock = roundClock(10);
    const res = trainGbdt({
      ...p,
      label,
      params: { objective: "binary", numLeaves: 31, maxRounds: 1000, earlyStoppingRounds: 500 },
      timeBudgetMs: 300,
      ...clock,
    });
    expect(res.stopReason).toBe("time_budget");
    expect(res.history.length).toBe(30);
    expect(res.rounds).toBeLessThan(30);
    const best = res.history.reduce((b, h, i) => (h.valLoss! < res.history[b].valLoss! ? i : b), 0);
    expect(res.rounds).toBe(best + 1);
    expect(res.model.trees.length).toBe(res.rounds);
    // the validation scores returned are the kept model's
    const val = p.valRows!;
    const raw = predictRaw(
      res.model,
      Float32Array.from({ length: val.length * 3 }, (_, i) => p.data[val[Math.floor(i / 3)] * 3 + (i % 3)]),
      val.length,
    );
    for (let i = 0; i < val.length; i++) expect(res.valRaw![i]).toBeCloseTo(raw[i], 12);
  });

  it("always does at least one round, and lets max rounds or early stopping win when they come first", () => {
    const one = trainGbdt({ ...problem(), params: { objective: "binary", maxRounds: 50 }, timeBudgetMs: 1, ...roundClock(10) });
    expect(one.stopReason).toBe("time_budget");
    expect(one.history.length).toBe(1);
    // the last round never counts as stopped by the budget
    const last = trainGbdt({
      ...problem(),
      params: { objective: "binary", maxRounds: 10, earlyStoppingRounds: 0 },
      timeBudgetMs: 100,
      ...roundClock(10),
    });
    expect(last.stopReason).toBe("max_rounds");
    expect(last.history.length).toBe(10);
    const roomy = trainGbdt({
      ...problem(),
      params: { objective: "binary", maxRounds: 40, earlyStoppingRounds: 0 },
      timeBudgetMs: 1e9,
      ...roundClock(10),
    });
    expect(roomy.stopReason).toBe("max_rounds");
    expect(roomy.history.length).toBe(40);
  });

  it("counts the caller's time between rounds (the stepwise driver)", () => {
    let t = 0;
    const gen = trainGbdtSteps({
      ...problem(),
      params: { objective: "binary", maxRounds: 500, earlyStoppingRounds: 0 },
      timeBudgetMs: 1000,
      now: () => t,
    });
    let steps = 0;
    for (let r = gen.next(); ; r = gen.next()) {
      if (r.done) {
        expect(r.value.stopReason).toBe("time_budget");
        break;
      }
      steps++;
      t += 100; // the caller's report takes 100 ms of the job's clock
    }
    // round k ends at 100 k ms: after round 10 the next one would end at 1100 ms > 1000 ms
    expect(steps).toBe(10);
  });

  it("is the same model with or without a budget that does not bind", () => {
    const input = { ...problem(), params: { objective: "binary" as const, maxRounds: 30, earlyStoppingRounds: 5 } };
    const plain = trainGbdt(input);
    const budgeted = trainGbdt({ ...input, timeBudgetMs: 1e9, ...roundClock(1) });
    expect(budgeted.model).toEqual(plain.model);
    expect(budgeted.stopReason).toBe(plain.stopReason);
  });

  it("refuses a budget that is not positive", () => {
    expect(() => trainGbdt({ ...problem(), params: { objective: "binary" }, timeBudgetMs: 0 })).toThrow(/timeBudgetMs must be positive/);
  });
});

describe("prediction model time_budget_s", () => {
  const frame = (n = 400): Frame => {
    const rng = new Rng(2);
    const x = Float64Array.from({ length: n }, () => rng.next());
    const z = Float64Array.from({ length: n }, () => rng.next());
    const y = Float64Array.from(x, (v, i) => Math.sin(6 * v) + z[i] + 0.1 * rng.next());
    return {
      rowCount: n,
      columns: [
        { name: "x", kind: "numeric", storage: "numeric", values: x },
        { name: "z", kind: "numeric", storage: "numeric", values: z },
        { name: "y", kind: "numeric", storage: "numeric", values: y },
      ],
    };
  };

  it("caps boosting on the given clock and reports time_budget", () => {
    let t = 0;
    const res = trainPredictionModel(frame(), {
      labelColumn: "y",
      params: { time_budget_s: 2, max_rounds: 1000, early_stopping_rounds: 0, search: "off" },
      now: () => t,
      onIteration: () => void (t += 250),
    });
    expect(res.stopReason).toBe("time_budget");
    // round k ends at 250 k ms: after round 8 the next one would end at 2250 ms > 2 s
    expect(res.history.length).toBe(8);
    expect(res.rounds).toBe(8);
  });

  it("refuses a budget that is not a positive number of seconds up to the maximum", () => {
    for (const bad of [0, -1, Number.NaN, MAX_TIME_BUDGET_S + 1]) {
      expect(() => trainPredictionModel(frame(50), { labelColumn: "y", params: { time_budget_s: bad } })).toThrow(MlInputError);
    }
  });
});
