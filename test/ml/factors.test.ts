import { beforeAll, describe, expect, it } from "vitest";
import { MlInputError } from "../../src/ml/errors";
import { applyFeaturizer } from "../../src/ml/featurize";
import type { FitStep } from "../../src/ml/fit/contract";
import type { Frame } from "../../src/ml/frame";
import { Rng } from "../../src/ml/random";
import { buildRepresentation, type Representation } from "../../src/ml/representation/representation";
import { type FactorsModel, type FactorsParams, trainFactorsSteps } from "../../src/ml/unsupervised/factors";
import { factorScores } from "./helpers/engine-scores";
import { createSession, runFeatures, toNumbers } from "./helpers/ort-node";

/** Two correlated numerics (a ≈ 2b), an independent one with missing values, a 3-level category. */
function frame(n: number, seed: number): Frame {
  const rng = new Rng(seed);
  const b = Float64Array.from({ length: n }, () => rng.next() * 10);
  const a = b.map((v) => 2 * v + rng.next());
  const c = Float64Array.from({ length: n }, () => (rng.next() < 0.1 ? NaN : rng.next() * 100));
  const cat = Int32Array.from({ length: n }, () => (rng.next() < 0.05 ? -1 : rng.int(3)));
  return {
    rowCount: n,
    columns: [
      { name: "id", kind: "id", storage: "numeric", values: Float64Array.from({ length: n }, (_, i) => i + 1) },
      { name: "a", kind: "numeric", storage: "numeric", values: a },
      { name: "b", kind: "numeric", storage: "numeric", values: b },
      { name: "c", kind: "numeric", storage: "numeric", values: c },
      { name: "cat", kind: "categorical", storage: "dictionary", codes: cat, dictionary: ["x", "y", "z"] },
    ],
  };
}

function train(f: Frame, rep: Representation, params: FactorsParams = {}): { model: FactorsModel; steps: FitStep[] } {
  const gen = trainFactorsSteps(f, { representation: rep, params });
  const steps: FitStep[] = [];
  for (;;) {
    const r = gen.next();
    if (r.done) return { model: r.value, steps };
    steps.push(r.value);
  }
}

describe("factors model", () => {
  let data: Frame;
  let rep: Representation;
  beforeAll(() => {
    data = frame(300, 1);
    // the standardized space only: no encoder
    rep = buildRepresentation(data, { encoder: false });
  });

  it("describes the factors: variance (cumulative too), loadings per column, top features, rule", () => {
    const { model, steps } = train(data, rep);
    const out = model.output as Record<string, unknown>;
    const k = out.n_components as number;
    expect(model.modelType).toBe("factors");
    expect(model.metrics).toEqual({});
    expect(model.head).toEqual({
      output: "factors",
      columns: Array.from({ length: k }, (_, j) => `factor_${j + 1}`),
      n_components: k,
      rotation: "none",
    });
    expect(out.n_components_rule).toMatch(/^auto/);
    const cumulative = out.cumulative_explained_variance_ratio as number[];
    expect(cumulative[k - 1]).toBeGreaterThanOrEqual(0.9);
    if (k > 1) expect(cumulative[k - 2]).toBeLessThan(0.9);
    // a and b move together: the first factor's top two features, same sign
    const top = (out.top_features as { factor: string; features: { column: string; loading: number }[] }[])[0];
    expect(top.factor).toBe("factor_1");
    expect(
      top.features
        .slice(0, 2)
        .map((f) => f.column)
        .sort(),
    ).toEqual(["a", "b"]);
    expect(Math.sign(top.features[0].loading)).toBe(Math.sign(top.features[1].loading));
    const summary = model.summary as { factors: { loadings: Record<string, number> }[]; standardized_columns: number };
    expect(Object.keys(summary.factors[0].loadings)).toEqual(["a", "b", "c", "cat=x", "cat=y", "cat=z"]);
    expect(summary.standardized_columns).toBe(6);
    expect(steps.length).toBeGreaterThan(0);
    steps.forEach((s, i) => expect(s).toEqual({ phase: "fit", step: i + 1, totalSteps: steps.length }));
  });

  it("ONNX output `factors` equals the engine's scores on unseen rows (missing, unseen category)", async () => {
    for (const params of [{ n_components: 4 }, { n_components: 3, rotation: "varimax" as const }]) {
      const { model } = train(data, rep, params);
      const test = frame(50, 2);
      (test.columns[4] as { dictionary: string[] }).dictionary = ["x", "new", "z"];
      (test.columns[2] as { values: Float64Array }).values[3] = NaN;
      const m = applyFeaturizer(model.featurizer, test);
      const session = await createSession(model.onnx);
      const out = await runFeatures(session, m.data, m.numRows, m.numFeatures);
      expect(out.factors.dims).toEqual([50, params.n_components]);
      expect(out.factors.type).toBe("float64");
      const engine = factorScores(model.scorer, m);
      const onnx = toNumbers(out.factors);
      let diff = 0;
      for (let i = 0; i < engine.length; i++) diff = Math.max(diff, Math.abs(engine[i] - onnx[i]));
      expect(diff).toBeLessThan(1e-9);
    }
  });

  it("is deterministic: same data and seed give identical ONNX bytes, head and summary", () => {
    for (const params of [{}, { rotation: "varimax" as const, n_components: 3 }]) {
      const a = train(data, rep, params).model;
      const b = train(data, rep, params).model;
      expect(Buffer.from(b.onnx).equals(Buffer.from(a.onnx))).toBe(true);
      expect(JSON.stringify(b.head)).toBe(JSON.stringify(a.head));
      expect(JSON.stringify(b.summary)).toBe(JSON.stringify(a.summary));
    }
  });

  it("rejects n_components above the standardized column count, naming both numbers", () => {
    expect(() => train(data, rep, { n_components: 7 })).toThrow(MlInputError);
    expect(() => train(data, rep, { n_components: 7 })).toThrow(/n_components is 7 .* only 6 standardized/);
    expect(() => train(data, rep, { n_components: 1.5 })).toThrow(/invalid parameter n_components/);
    expect(() => train(data, rep, { rotation: "promax" as never })).toThrow(/invalid parameter rotation/);
  });

  it("restricts the factors to input_columns", () => {
    const gen = trainFactorsSteps(data, { representation: rep, inputColumns: ["a", "b"], params: { n_components: 2 } });
    let r = gen.next();
    while (!r.done) r = gen.next();
    const summary = r.value.summary as { factors: { loadings: Record<string, number> }[] };
    expect(Object.keys(summary.factors[0].loadings)).toEqual(["a", "b"]);
    // two standardized, strongly correlated columns: the first factor is (1, 1)/√2
    expect(summary.factors[0].loadings.a).toBeCloseTo(summary.factors[0].loadings.b, 1);
  });
});
