import { describe, expect, it } from "vitest";
import { SEARCH_AUTO_MAX_ROWS } from "../../src/core/limits";
import { applyFeaturizer } from "../../src/ml/featurize";
import type { Frame } from "../../src/ml/frame";
import { blendGbdtModels } from "../../src/ml/gbdt/blend";
import { predictRaw } from "../../src/ml/gbdt/predict";
import type { PredictionModelResult } from "../../src/ml/prediction/model";
import { autoSearchSkipped } from "../../src/ml/prediction/search-model";
import { type TrainingStep, trainPredictionModelSteps, trainPredictionModel as trainWithOwnRepresentation } from "../../src/ml/prediction/train";
import { Rng } from "../../src/ml/random";
import { buildRepresentation, type Representation } from "../../src/ml/representation/representation";

/**
 * The table's shared representation, built once and without the encoder, which a prediction model
 * never reads (test/ml/prediction-representation.test.ts checks the model is the same with it):
 * building it was most of each training's time here.
 */
const reps = new WeakMap<Frame, Representation>();
const trainPredictionModel: typeof trainWithOwnRepresentation = (f, opts) => {
  if (!reps.has(f)) reps.set(f, buildRepresentation(f, { encoder: false }));
  return trainWithOwnRepresentation(f, { representation: reps.get(f), ...opts });
};

/** y depends on x non-linearly and on z; w is noise. The same object for the same arguments. */
const frames = new Map<string, Frame>();
function frame(n = 300, seed = 4): Frame {
  const key = `${n}/${seed}`;
  if (!frames.has(key)) frames.set(key, makeFrame(n, seed));
  return frames.get(key)!;
}

function makeFrame(n: number, seed: number): Frame {
  const rng = new Rng(seed);
  const col = (name: string, values: Float64Array) => ({ name, kind: "numeric" as const, storage: "numeric" as const, values });
  const x = Float64Array.from({ length: n }, () => rng.next());
  const z = Float64Array.from({ length: n }, () => rng.next());
  const w = Float64Array.from({ length: n }, () => rng.next());
  const y = Float64Array.from(x, (v, i) => Math.sin(6 * v) + z[i] + 0.3 * rng.next());
  return { rowCount: n, columns: [col("x", x), col("z", z), col("w", w), col("y", y)] };
}

function drain(gen: Generator<TrainingStep, PredictionModelResult, void>) {
  const steps: TrainingStep[] = [];
  for (;;) {
    const r = gen.next();
    if (r.done) return { steps, result: r.value };
    steps.push(r.value);
  }
}

describe("prediction model search", () => {
  it("is the default: trials scored by cross-validation, the first one today's defaults, the best one kept", () => {
    const res = trainPredictionModel(frame(), { labelColumn: "y", params: { max_trials: 8 } });
    const s = res.search!;
    expect(s.method).toBe("cross_validation");
    expect(res.validation).toMatchObject({ method: "cross_validation", valRows: 300, metricsOn: "validation" });
    expect(s.trials.length).toBeGreaterThan(1);
    expect(s.trials.length).toBeLessThanOrEqual(8);
    expect(s.trials[0].params).toMatchObject({ learning_rate: 0.1, num_leaves: 7, l2: 1 });
    const completed = s.trials.filter((t) => t.status === "completed");
    const best = completed.reduce((a, b) => (b.loss < a.loss ? b : a));
    expect(s.best).toBe(best.trial);
    expect(s.instances).toBe(1);
  });

  it("serves a model no worse out of fold than its best trial (an ensemble only when it helps)", () => {
    const res = trainPredictionModel(frame(), { labelColumn: "y", params: { max_trials: 10 } });
    const s = res.search!;
    const bestLoss = s.trials.find((t) => t.trial === s.best)!.loss;
    // regression loss is the RMSE: the served blend's out-of-fold RMSE
    expect(res.metrics.rmse as number).toBeLessThanOrEqual(bestLoss + 1e-9);
    if (s.ensemble) {
      expect(s.ensemble.members.reduce((a, m) => a + m.weight, 0)).toBeCloseTo(1, 12);
      expect(s.ensemble.loss).toBeLessThan(bestLoss);
    }
  });

  it("keeps the parameters the request gives fixed", () => {
    const res = trainPredictionModel(frame(), { labelColumn: "y", params: { max_trials: 6, num_leaves: 5, l2: 2 } });
    for (const t of res.search!.trials) expect(t.params).toMatchObject({ num_leaves: 5, l2: 2 });
    expect(new Set(res.search!.trials.map((t) => t.params.learning_rate)).size).toBeGreaterThan(1);
  });

  it("is deterministic for a seed", () => {
    const a = trainPredictionModel(frame(), { labelColumn: "y", params: { max_trials: 5, seed: 7 } });
    const b = trainPredictionModel(frame(), { labelColumn: "y", params: { max_trials: 5, seed: 7 } });
    expect(a.model).toEqual(b.model);
    expect(a.search!.trials.map((t) => t.params)).toEqual(b.search!.trials.map((t) => t.params));
  });

  it("stops at the time budget and still serves the best trial so far", () => {
    let t = 0;
    // every reading of the clock advances it by 10 ms
    const res = trainPredictionModel(frame(), { labelColumn: "y", params: { time_budget_s: 3 }, now: () => (t += 10) });
    expect(res.search!.stopReason).toBe("time_budget");
    expect(res.stopReason).toBe("time_budget");
    expect(res.search!.trials.length).toBeLessThan(40);
    expect(res.model.trees.length).toBeGreaterThan(0);
  });

  it("off: one model, as without a search", () => {
    const res = trainPredictionModel(frame(), { labelColumn: "y", params: { search: "off" } });
    expect(res.search).toBeNull();
    expect(res.validation.method).toBe("random");
  });

  it("auto, on a table above SEARCH_AUTO_MAX_ROWS labelled rows: one model", () => {
    const f = frame(SEARCH_AUTO_MAX_ROWS + 10, 6);
    // a search would stop at this budget and still report its trials
    const res = trainPredictionModel(f, { labelColumn: "y", params: { max_rounds: 2, time_budget_s: 5 } });
    expect(res.search).toBeNull();
    expect(res.model.trees.length).toBeLessThanOrEqual(2);
  });

  it("on: a search, as auto on a small table", () => {
    const res = trainPredictionModel(frame(), { labelColumn: "y", params: { search: "on", max_trials: 2 } });
    expect(res.search!.trials.length).toBe(2);
  });

  it("reports one step per boosting round and one with the best loss per trial", () => {
    const { steps, result } = drain(trainPredictionModelSteps(frame(), { labelColumn: "y", params: { max_trials: 4 } }));
    const search = steps.filter((s) => s.phase === "search");
    const done = search.filter((s) => s.bestLoss !== null);
    expect(done.map((s) => s.trial)).toEqual(result.search!.trials.map((t) => t.trial + 1));
    // the best loss so far never rises
    for (let i = 1; i < done.length; i++) expect(done[i].bestLoss!).toBeLessThanOrEqual(done[i - 1].bestLoss!);
    expect(search.length).toBeGreaterThan(done.length);
  });

  it("on a larger table, scores trials on the holdout", () => {
    const res = trainPredictionModel(frame(21_000, 5), { labelColumn: "y", params: { max_trials: 2 } });
    expect(res.search!.method).toBe("holdout");
    expect(res.validation.method).toBe("random");
  });
});

describe("autoSearchSkipped", () => {
  it("says why auto trained one model above the limit, and nothing at or below it", () => {
    expect(autoSearchSkipped("auto", 1000, 1000)).toBeNull();
    expect(autoSearchSkipped("auto", 1001, 1000)).toMatch(/1001 labelled rows is above the 1000 .*search "on"/);
  });

  it("is null when the request chose", () => {
    expect(autoSearchSkipped("on", 5000, 1000)).toBeNull();
    expect(autoSearchSkipped("off", 5000, 1000)).toBeNull();
  });
});

describe("blendGbdtModels", () => {
  it("predicts the weighted sum of its members' raw scores", () => {
    const f = frame();
    const a = trainPredictionModel(f, { labelColumn: "y", params: { search: "off", num_leaves: 4 } });
    const b = trainPredictionModel(f, { labelColumn: "y", params: { search: "off", num_leaves: 15, seed: 3 } });
    const blend = blendGbdtModels([
      { model: a.model, weight: 0.25 },
      { model: b.model, weight: 0.75 },
    ]);
    const X = applyFeaturizer(a.featurizer, f);
    const ra = predictRaw(a.model, X.data, X.numRows);
    const rb = predictRaw(b.model, X.data, X.numRows);
    const rblend = predictRaw(blend, X.data, X.numRows);
    for (let i = 0; i < X.numRows; i++) expect(rblend[i]).toBeCloseTo(0.25 * ra[i] + 0.75 * rb[i], 4);
  });
});
