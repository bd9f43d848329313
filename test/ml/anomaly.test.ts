import { beforeAll, describe, expect, it } from "vitest";
import { MlInputError } from "../../src/ml/errors";
import { applyFeaturizer } from "../../src/ml/featurize";
import type { FitStep } from "../../src/ml/fit/contract";
import type { Frame } from "../../src/ml/frame";
import { Rng } from "../../src/ml/random";
import { buildRepresentation, type Representation } from "../../src/ml/representation/representation";
import { type AnomalyModel, type AnomalyParams, trainAnomalySteps } from "../../src/ml/unsupervised/anomaly";
import { scoreAnomalies } from "./helpers/engine-scores";
import { createSession, runFeatures, toNumbers } from "./helpers/ort-node";

const N = 2100;
const OUTLIER = 5;

/** Two correlated numerics (some missing), a category, string ids; row OUTLIER is far off. */
function makeFrame(): Frame {
  const rng = new Rng(9);
  const a = new Float64Array(N);
  const b = new Float64Array(N);
  const codes = new Int32Array(N);
  for (let i = 0; i < N; i++) {
    a[i] = rng.next() * 10;
    b[i] = 2 * a[i] + rng.next();
    codes[i] = rng.int(3);
    if (i % 40 === 1) a[i] = NaN;
    if (i % 55 === 2) codes[i] = -1;
  }
  a[OUTLIER] = 40;
  b[OUTLIER] = -30;
  return {
    rowCount: N,
    columns: [
      {
        name: "id",
        kind: "id",
        storage: "dictionary",
        codes: Int32Array.from({ length: N }, (_, i) => i),
        dictionary: Array.from({ length: N }, (_, i) => `r${i}`),
      },
      { name: "a", kind: "numeric", storage: "numeric", values: a },
      { name: "b", kind: "numeric", storage: "numeric", values: b },
      { name: "c", kind: "categorical", storage: "dictionary", codes, dictionary: ["x", "y", "z"] },
    ],
  };
}

let frame: Frame;
let rep: Representation;

function train(params: AnomalyParams, inputColumns?: string[]): { model: AnomalyModel; steps: FitStep[] } {
  const gen = trainAnomalySteps(frame, { representation: rep, params, inputColumns });
  const steps: FitStep[] = [];
  for (;;) {
    const r = gen.next();
    if (r.done) return { model: r.value, steps };
    steps.push(r.value);
  }
}

/** Max |ONNX - engine| of the scores and the number of differing flags, on the frame's rows plus odd ones. */
async function compareOnnx(model: AnomalyModel): Promise<{ maxDiff: number; flagDiffs: number; dims: readonly number[]; type: string }> {
  const extra: Frame = {
    rowCount: 3,
    columns: [
      { name: "a", kind: "numeric", storage: "numeric", values: Float64Array.from([NaN, 1e30, 5]) },
      { name: "b", kind: "numeric", storage: "numeric", values: Float64Array.from([NaN, 3, NaN]) },
      { name: "c", kind: "categorical", storage: "dictionary", codes: Int32Array.from([0, 1, -1]), dictionary: ["never seen", "y"] },
    ],
  };
  let maxDiff = 0;
  let flagDiffs = 0;
  let dims: readonly number[] = [];
  let type = "";
  const session = await createSession(model.onnx);
  for (const f of [frame, extra]) {
    const engine = scoreAnomalies(model.scorer, f);
    const m = applyFeaturizer(model.featurizer, f);
    const out = await runFeatures(session, m.data, m.numRows, m.numFeatures);
    const scores = toNumbers(out.anomaly_score);
    const flags = toNumbers(out.is_anomaly);
    for (let i = 0; i < m.numRows; i++) {
      maxDiff = Math.max(maxDiff, Math.abs(scores[i] - engine.scores[i]));
      if (flags[i] !== engine.isAnomaly[i]) flagDiffs++;
    }
    dims = out.anomaly_score.dims;
    type = out.is_anomaly.type;
  }
  return { maxDiff, flagDiffs, dims, type };
}

beforeAll(() => {
  frame = makeFrame();
  rep = buildRepresentation(frame, { seed: 0 });
});

describe("anomaly model", () => {
  it("isolation forest: ONNX equals the engine (scores ≤ 1e-5, same flags), anomaly_score [N], is_anomaly bool", async () => {
    const { model } = train({});
    const r = await compareOnnx(model);
    expect(r.maxDiff).toBeLessThanOrEqual(1e-5);
    expect(r.flagDiffs).toBe(0);
    expect(r.dims).toEqual([3]);
    expect(r.type).toBe("bool");
  });

  it("blended: ONNX equals the engine", async () => {
    const { model } = train({ method: "blended" });
    expect(model.summary.method).toBe("blended");
    const r = await compareOnnx(model);
    expect(r.maxDiff).toBeLessThanOrEqual(1e-5);
    expect(r.flagDiffs).toBe(0);
  });

  it("lists the outlier's id first, ids by decreasing score, the count of all flagged rows", () => {
    const { model } = train({});
    const ids = model.output.anomalous_ids as string[];
    expect(ids[0]).toBe(`r${OUTLIER}`);
    const { scores, isAnomaly } = scoreAnomalies(model.scorer, frame);
    expect(model.output.anomalous_count).toBe(isAnomaly.reduce((s, v) => s + v, 0));
    const listed = ids.map((id) => scores[Number(id.slice(1))]);
    for (let i = 1; i < listed.length; i++) expect(listed[i]).toBeLessThanOrEqual(listed[i - 1]);
    for (const id of ids) expect(scores[Number(id.slice(1))]).toBeGreaterThan(model.output.threshold as number);
    expect(model.output.threshold_rule).toMatch(/^modified z-score > 3.5/);
    expect(model.output.method).toBe("isolation_forest");
    expect(model.metrics).toEqual({});
  });

  it("contamination c flags c·N training rows and caps the listed ids at 1000", () => {
    const five = train({ contamination: 0.05, n_estimators: 20 }).model;
    expect(five.output.anomalous_count).toBe(105);
    expect(five.output.threshold_rule).toMatch(/^contamination 0.05: the 0.95 quantile/);
    const half = train({ contamination: 0.5, n_estimators: 20 }).model;
    expect(half.output.anomalous_count).toBe(1050);
    expect((half.output.anomalous_ids as string[]).length).toBe(1000);
  });

  it("is deterministic: same seed, byte-identical ONNX and head; another seed differs", () => {
    const a = train({ n_estimators: 30, seed: 4 }).model;
    const b = train({ n_estimators: 30, seed: 4 }).model;
    const c = train({ n_estimators: 30, seed: 5 }).model;
    expect(Buffer.from(b.onnx).equals(Buffer.from(a.onnx))).toBe(true);
    expect(JSON.stringify(b.head)).toBe(JSON.stringify(a.head));
    expect(JSON.stringify(b.output)).toBe(JSON.stringify(a.output));
    expect(Buffer.from(c.onnx).equals(Buffer.from(a.onnx))).toBe(false);
  });

  it("reports one fit step per tree, then per scoring chunk, and a summary with ordered quantiles", () => {
    const { model, steps } = train({ n_estimators: 12, max_samples: 64 });
    expect(steps.map((s) => s.step)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
    expect(steps.every((s) => s.phase === "fit" && s.totalSteps === 13)).toBe(true);
    const q = model.summary.score_quantiles as Record<string, number>;
    const order = ["min", "p25", "p50", "p75", "p90", "p95", "p99", "max"].map((k) => q[k]);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    expect(q.min).toBeGreaterThan(0);
    expect(q.max).toBeLessThanOrEqual(1);
    expect(model.summary).toMatchObject({ n_estimators: 12, max_samples: 64, method: "isolation_forest" });
  });

  it("restricts the features to input_columns", () => {
    const { model } = train({ n_estimators: 10 }, ["a"]);
    expect(model.featurizer.features.map((f) => f.name)).toEqual(["a"]);
    expect(model.scorer.forest.numFeatures).toBe(1);
  });

  it("rejects parameters out of range with a user-facing error", () => {
    const tooBig = { n_estimators: 1000, max_samples: 2048 }; // 2M sub-sample rows: a model too large
    for (const params of [{ contamination: 0.6 }, { contamination: 0 }, { n_estimators: 0 }, { max_samples: 1 }, { method: "lof" }, tooBig]) {
      expect(() => train(params as AnomalyParams)).toThrow(MlInputError);
    }
  });
});
