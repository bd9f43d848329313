import { describe, expect, it } from "vitest";
import { causalData } from "../../bench/causal/data";
import { aipwEstimate, crossFitSteps, overlapWeights, pseudoOutcomes } from "../../src/ml/causal/aipw";
import { type FitInput, fitGbdt, predictRows } from "../../src/ml/causal/fit";
import { type LearnerName, learnerFitCount } from "../../src/ml/causal/learners";
import { type CausalModel, type CausalParams, predictCausal, trainCausalSteps } from "../../src/ml/causal/model";
import { NUISANCE_SETTINGS } from "../../src/ml/causal/nuisance-settings";
import { resolveOutcome, resolveTreatment } from "../../src/ml/causal/treatment";
import { MlInputError } from "../../src/ml/errors";
import { applyFeaturizer, featureKinds, selectFeatures } from "../../src/ml/featurize";
import type { FitStep } from "../../src/ml/fit/contract";
import type { Frame, NumericColumn } from "../../src/ml/frame";
import { buildRepresentation, deriveModelFeatures, type Representation } from "../../src/ml/representation/representation";
import { causalRepresentation } from "./causal-representation";
import { createSession, runFeatures, toNumbers } from "./helpers/ort-node";

const reps = new WeakMap<Frame, Representation>();
function repOf(frame: Frame): Representation {
  let rep = reps.get(frame);
  if (!rep) reps.set(frame, (rep = causalRepresentation(frame)));
  return rep;
}

function train(frame: Frame, params: CausalParams = {}, labelColumn = "y"): { model: CausalModel; steps: FitStep[] } {
  const gen = trainCausalSteps(frame, { representation: repOf(frame), labelColumn, params });
  const steps: FitStep[] = [];
  for (;;) {
    const r = gen.next();
    if (r.done) return { model: r.value, steps };
    steps.push(r.value);
  }
}

type Out = { ate: number; std_error: number; ci_low: number; ci_high: number; estimates: { naive_difference: number }[] };

describe("causal: effect recovery", () => {
  it("recovers a constant effect under confounding, where the naive difference is biased", () => {
    const d = causalData({ n: 3000, seed: 1, effect: 2, confounding: 1 });
    const o = train(d.frame).model.output as unknown as Out;
    expect(Math.abs(o.ate - 2)).toBeLessThan(3 * o.std_error);
    expect(o.ci_low).toBeLessThan(2);
    expect(o.ci_high).toBeGreaterThan(2);
    // x1 raises both the treatment's chance and the outcome: the naive difference is far off
    expect(o.estimates[0].naive_difference - 2).toBeGreaterThan(10 * o.std_error);
  });

  it("without confounding the naive difference and the estimate agree", () => {
    const d = causalData({ n: 3000, seed: 2, effect: 1, confounding: 0 });
    const o = train(d.frame).model.output as unknown as Out;
    expect(Math.abs(o.ate - 1)).toBeLessThan(3 * o.std_error);
    expect(Math.abs(o.estimates[0].naive_difference - o.ate)).toBeLessThan(3 * o.std_error);
  });

  it("binary outcome: effect on the probability scale, outcomes are probabilities", () => {
    const d = causalData({ n: 4000, seed: 3, effect: 1, binary: true });
    const { model } = train(d.frame);
    const o = model.output as unknown as Out & { outcome_kind: string; effect_scale: string };
    expect(o.outcome_kind).toBe("binary");
    expect(o.effect_scale).toContain('= "1"');
    expect(Math.abs(o.ate - d.ate)).toBeLessThan(3 * o.std_error);
    const p = predictCausal(model.predictor, d.frame);
    for (const arr of [p.outcomeIfTreated, p.outcomeIfControl]) for (const v of arr) expect(v >= 0 && v <= 1).toBe(true);
  });

  it("the heterogeneity driver leads the effect model's features", () => {
    const d = causalData({ n: 4000, seed: 4, effect: 1, heterogeneity: 3, confounding: 0.5, noise: 0.5 });
    const { model } = train(d.frame);
    const feats = (model.output.estimates as { heterogeneity_features: { feature: string }[] }[])[0].heterogeneity_features;
    expect(feats[0].feature).toBe("x2");
    const p = predictCausal(model.predictor, d.frame);
    let pehe = 0;
    for (let i = 0; i < d.tau.length; i++) pehe += (p.effect[i] - d.tau[i]) ** 2;
    expect(Math.sqrt(pehe / d.tau.length)).toBeLessThan(0.6); // τ spans [-2, 4]
  });
});

describe("causal: overlap", () => {
  it("warns about poor overlap and reports the clipped share", () => {
    const d = causalData({ n: 2000, seed: 10, confounding: 5 });
    const o = train(d.frame).model.output as { warnings: string[]; clipped_share: number; propensity_range: number[] };
    expect(o.clipped_share).toBeGreaterThan(0.05);
    expect(o.propensity_range[0]).toBeLessThan(0.01);
    expect(o.warnings.join()).toMatch(/^poor overlap: .* of rows had a propensity outside \[0.01, 0.99\]/);
  });

  it("no warning with good overlap", () => {
    const d = causalData({ n: 1000, seed: 11, confounding: 0 });
    expect(train(d.frame).model.output.warnings).toEqual([]);
  });
});

describe("causal: aipwEstimate", () => {
  it("mean, sd/√n and the 95% interval, NaN skipped", () => {
    const e = aipwEstimate(Float64Array.from([1, 2, 3, 4, NaN]));
    expect(e.n).toBe(4);
    expect(e.ate).toBe(2.5);
    const se = Math.sqrt(5 / 3 / 4);
    expect(e.std_error).toBeCloseTo(se, 12);
    expect(e.ci_low).toBeCloseTo(2.5 - 1.959964 * se, 5);
    expect(e.ci_high).toBeCloseTo(2.5 + 1.959964 * se, 5);
  });
});

describe("causal: treatment and outcome checks", () => {
  const base = causalData({ n: 300, seed: 5 }).frame;
  const withCols = (extra: Frame["columns"], drop: string[] = []): Frame => ({
    rowCount: base.rowCount,
    columns: [...base.columns.filter((c) => !drop.includes(c.name)), ...extra],
  });
  const binaryCol = (name: string) => ({
    name,
    kind: "numeric" as const,
    storage: "numeric" as const,
    values: Float64Array.from({ length: base.rowCount }, (_, i) => i % 2),
  });
  // the input checks come before any use of the representation: the base frame's serves all
  const fails = (frame: Frame, params: CausalParams, pattern: RegExp, label = "y") => {
    let error: unknown = null;
    try {
      trainCausalSteps(frame, { representation: repOf(base), labelColumn: label, params }).next();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MlInputError);
    expect((error as Error).message).toMatch(pattern);
  };

  it("infers the one action-named binary column and says why", () => {
    const o = train(withCols([binaryCol("is_member")])).model.output;
    expect(o.treatment_column).toBe("treated");
    expect(o.treatment_reason).toMatch(/inferred/);
    expect(o.control_value).toBe("0");
  });

  it("several candidates: fails listing them", () => {
    fails(withCols([binaryCol("got_offer")]), {}, /several columns could be the treatment: "treated", "got_offer"; set params.action_column/);
  });

  it("no candidate: fails listing the two-valued columns", () => {
    fails(withCols([binaryCol("is_member")], ["treated"]), {}, /no treatment column could be inferred.*"is_member".*set params.action_column/);
  });

  it("a treatment with one arm only fails clearly", () => {
    const one = { ...binaryCol("treated"), values: new Float64Array(base.rowCount).fill(1) };
    fails(withCols([one], ["treated"]), { action_column: "treated" }, /treatment column "treated" has a single value \("1"\)/);
  });

  it("an arm with fewer than 10 rows fails", () => {
    const few = { ...binaryCol("treated"), values: Float64Array.from({ length: base.rowCount }, (_, i) => (i < 5 ? 1 : 0)) };
    fails(withCols([few], ["treated"]), {}, /"treated" = "1" has 5 row\(s\).*at least 10/);
  });

  it("a constant or missing outcome fails", () => {
    const flat = { name: "y", kind: "numeric" as const, storage: "numeric" as const, values: new Float64Array(base.rowCount).fill(3) };
    fails(withCols([flat], ["y"]), {}, /outcome column "y" is constant/);
    fails(base, {}, /outcome \(label\) column "nope" not found/, "nope");
  });

  it("two categories need control_value; with it the named arm is the control", () => {
    const cat = {
      name: "variant",
      kind: "categorical" as const,
      storage: "dictionary" as const,
      codes: Int32Array.from({ length: base.rowCount }, (_, i) => i % 2),
      dictionary: ["blue", "green"],
    };
    const f = withCols([cat], ["treated"]);
    fails(f, {}, /values "blue", "green": set params.control_value/);
    const o = train(f, { control_value: "green" }).model.output;
    expect(o.control_value).toBe("green");
    expect(o.treated_arms).toEqual(["blue"]);
  });

  it("bad params fail", () => {
    fails(base, { propensity_clip: [0.5, 0.2] }, /invalid parameter propensity_clip/);
    fails(base, { folds: 1 }, /invalid parameter folds/);
    fails(base, { learner: "r" as never }, /invalid parameter learner: "r"/);
    fails(base, { action_column: "y" }, /cannot also be the outcome/);
  });
});

/** A 3-arm treatment (a categorical "campaign" with arms none/email/sms), missing features. */
function multiArm(): Frame {
  const d = causalData({ n: 1500, seed: 6, effect: 1 });
  const f = d.frame;
  const x1 = (f.columns[1] as NumericColumn).values;
  const y = (f.columns[5] as NumericColumn).values;
  const codes = new Int32Array(f.rowCount);
  for (let i = 0; i < f.rowCount; i++) {
    codes[i] = (i * 7 + (x1[i] > 0 ? 1 : 0)) % 3;
    y[i] += codes[i] === 1 ? 1 : codes[i] === 2 ? -0.5 : 0;
    if (i % 37 === 0) x1[i] = NaN;
  }
  const campaign = { name: "campaign", kind: "categorical" as const, storage: "dictionary" as const, codes, dictionary: ["none", "email", "sms"] };
  return { rowCount: f.rowCount, columns: [...f.columns.filter((c) => c.name !== "treated"), campaign] };
}

describe("causal: ONNX, files, determinism", () => {
  it("ONNX equals the engine (binary treatment, binary outcome)", async () => {
    const d = causalData({ n: 800, seed: 7, binary: true });
    const { model } = train(d.frame);
    const m = applyFeaturizer(model.featurizer, d.frame);
    const out = await runFeatures(await createSession(model.onnx), m.data, m.numRows, m.numFeatures);
    const p = predictCausal(model.predictor, d.frame);
    expect(out.effect.dims).toEqual([m.numRows]);
    expect(out.effect.type).toBe("float64");
    const diff = (a: number[], b: Float64Array) => Math.max(...a.map((v, i) => Math.abs(v - b[i])));
    expect(diff(toNumbers(out.effect), p.effect)).toBeLessThan(1e-9);
    expect(diff(toNumbers(out.outcome_if_treated), p.outcomeIfTreated)).toBeLessThan(1e-9);
    expect(diff(toNumbers(out.outcome_if_control), p.outcomeIfControl)).toBeLessThan(1e-9);
    expect(out.propensity.dims).toEqual([m.numRows, 2]);
    expect(diff(toNumbers(out.propensity), p.propensity)).toBeLessThan(1e-9);
  });

  it("multi-arm: [N, arms-1] outputs equal the engine; per-arm estimates", async () => {
    const f = multiArm();
    const { model, steps } = train(f, { action_column: "campaign", control_value: "none", folds: 3 });
    expect(model.head.treated_arms).toEqual(["email", "sms"]);
    // 3 arms, 3 folds, numeric outcome: outcome models = a pooled model + one per arm (4 fits),
    // nuisance screening 3 settings × (4 + 1), cross-fitting 3 folds × (4 + 1), served 4 + 1,
    // learner scoring 2 treated arms × 3 folds × (T 0 + S 1 + X 2 + DR 1), then the served mix
    const served = Object.keys((model.output.learner as { served: object }).served) as LearnerName[];
    const total = 15 + 15 + 5 + 24 + 2 * served.reduce((n, l) => n + learnerFitCount(l, "regression"), 0);
    expect(steps.length).toBe(total);
    expect(steps.map((s) => (s as { step: number }).step)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(steps.at(-1)).toEqual({ phase: "fit", step: total, totalSteps: total });
    const est = model.output.estimates as { arm: string; ate: number; std_error: number }[];
    // the dropped "treated" column's effect depends on x only: email +1, sms −0.5 vs none
    expect(Math.abs(est[0].ate - 1)).toBeLessThan(4 * est[0].std_error);
    expect(Math.abs(est[1].ate + 0.5)).toBeLessThan(4 * est[1].std_error);
    const m = applyFeaturizer(model.featurizer, f);
    const out = await runFeatures(await createSession(model.onnx), m.data, m.numRows, m.numFeatures);
    const p = predictCausal(model.predictor, f);
    expect(out.effect.dims).toEqual([m.numRows, 2]);
    expect(out.outcome_if_control.dims).toEqual([m.numRows]);
    const e = toNumbers(out.effect);
    expect(Math.max(...e.map((v, i) => Math.abs(v - p.effect[i])))).toBeLessThan(1e-9);
    expect(out.propensity.dims).toEqual([m.numRows, 3]);
    const pr = toNumbers(out.propensity);
    expect(Math.max(...pr.map((v, i) => Math.abs(v - p.propensity[i])))).toBeLessThan(1e-9);
    for (let i = 0; i < m.numRows; i++) expect(pr[3 * i] + pr[3 * i + 1] + pr[3 * i + 2]).toBeCloseTo(1, 9);
  });

  it("pseudo_outcomes.bin: float64 LE per frame row, NaN where the outcome is missing", () => {
    const d = causalData({ n: 400, seed: 8 });
    (d.frame.columns[5] as NumericColumn).values[3] = NaN;
    const { model } = train(d.frame);
    const file = model.files!.find((x) => x.name === "pseudo_outcomes.bin")!;
    expect(file.bytes.length).toBe(400 * 8);
    const v = new DataView(file.bytes.buffer, file.bytes.byteOffset);
    expect(Number.isNaN(v.getFloat64(3 * 8, true))).toBe(true);
    const vals = Float64Array.from({ length: 400 }, (_, i) => v.getFloat64(i * 8, true));
    expect(aipwEstimate(vals).ate).toBeCloseTo(model.output.ate as number, 12);
    expect(model.output.n).toBe(399);
  });

  it("same seed: byte-identical ONNX, head and file; another seed differs", () => {
    const d = causalData({ n: 600, seed: 9 });
    const a = train(d.frame, { seed: 3 }).model;
    const b = train(d.frame, { seed: 3 }).model;
    expect(Buffer.from(a.onnx).equals(Buffer.from(b.onnx))).toBe(true);
    expect(JSON.stringify(a.head)).toBe(JSON.stringify(b.head));
    expect(Buffer.from(a.files![0].bytes).equals(Buffer.from(b.files![0].bytes))).toBe(true);
    const c = train(d.frame, { seed: 4 }).model;
    expect(Buffer.from(a.onnx).equals(Buffer.from(c.onnx))).toBe(false);
  });

  it("the same model on the service's whole representation, encoder included, as on the tests' one without it", () => {
    const d = causalData({ n: 600, seed: 10 });
    const whole = buildRepresentation(d.frame);
    expect(whole.encoder).not.toBeNull();
    const run = (representation: Representation) => {
      const gen = trainCausalSteps(d.frame, { representation, labelColumn: "y", params: {} });
      for (;;) {
        const r = gen.next();
        if (r.done) return r.value;
      }
    };
    const [a, b] = [run(whole), run(repOf(d.frame))];
    expect(Buffer.from(a.onnx).equals(Buffer.from(b.onnx))).toBe(true);
    expect(JSON.stringify(a.head)).toBe(JSON.stringify(b.head));
    expect(JSON.stringify(a.output)).toBe(JSON.stringify(b.output));
  });
});

describe("causal: overlap-weighted effect model", () => {
  it("weights are e(1 − e) (binary) and e_a·e_c/(e_a + e_c) (multi-arm) on the unclipped propensities, mean 1", () => {
    const e2 = Float64Array.from([0.5, 0.5, 0.1, 0.9, 0.998, 0.002]);
    const w2 = overlapWeights({ mu: new Float64Array(6), e: e2 }, 2);
    const raw2 = [0.25, 0.09, 0.998 * 0.002];
    const s2 = raw2.reduce((a, b) => a + b, 0) / 3;
    raw2.forEach((v, j) => expect(w2[j]).toBeCloseTo(v / s2, 12));
    // 3 arms, rows (control, arm 1, arm 2) = (0.2, 0.5, 0.3) and (0.6, 0.2, 0.2)
    const e3 = Float64Array.from([0.2, 0.5, 0.3, 0.6, 0.2, 0.2]);
    const w3 = overlapWeights({ mu: new Float64Array(6), e: e3 }, 3);
    const h = (a: number, c: number) => (a * c) / (a + c);
    const arm1 = [h(0.5, 0.2), h(0.2, 0.6)];
    const arm2 = [h(0.3, 0.2), h(0.2, 0.6)];
    expect(w3[0]).toBeCloseTo((2 * arm1[0]) / (arm1[0] + arm1[1]), 12);
    expect(w3[2]).toBeCloseTo((2 * arm1[1]) / (arm1[0] + arm1[1]), 12);
    expect(w3[1]).toBeCloseTo((2 * arm2[0]) / (arm2[0] + arm2[1]), 12);
    expect(w3[3]).toBeCloseTo((2 * arm2[1]) / (arm2[0] + arm2[1]), 12);
  });

  it("poor overlap: the weighted final stage recovers τ(x) = 1 + x2 better than an unweighted one on the same φ", () => {
    // P(T=1) = sigmoid(6·x1): rows with |x1| near 1 are (almost) always or never treated, their φ
    // are blown up by 1/ê (and biased past the clip bounds)
    const results = [21, 22, 23].map((seed) => {
      const d = causalData({ n: 6000, seed, effect: 1, heterogeneity: 1, confounding: 3 });
      const tr = resolveTreatment(d.frame, "y");
      const derived = deriveModelFeatures(repOf(d.frame), "y");
      const keep = derived.featurizer.features.map((f) => f.source !== tr.column);
      const featurizer = selectFeatures(derived.featurizer, (src) => src !== tr.column, "treatment column");
      const m = applyFeaturizer(featurizer, d.frame);
      const input: FitInput = {
        m,
        categorical: featureKinds(featurizer).map((k) => k.type === "categorical"),
        featureNames: featurizer.features.map((f) => f.name),
        bins: derived.bins.filter((_, i) => keep[i]),
      };
      const rows = Int32Array.from({ length: d.frame.rowCount }, (_, i) => i);
      const y = resolveOutcome(d.frame, "y").y;
      // what the model serves with the DR learner is the weighted fit (same nuisance settings, folds, seeds and rows)
      const served = train(d.frame, { learner: "dr" }).model;
      const nuisance = (served.output.learner as { nuisance: { outcome_trees: string; propensity_trees: string } }).nuisance;
      const cross = crossFitSteps(input, y, tr.arm, rows, 2, {
        folds: 5,
        seed: 0,
        outcome: "regression",
        outcomeSettings: NUISANCE_SETTINGS[nuisance.outcome_trees],
        propensitySettings: NUISANCE_SETTINGS[nuisance.propensity_trees],
      });
      let cf = cross.next();
      while (!cf.done) cf = cross.next();
      const po = pseudoOutcomes(cf.value, y, tr.arm, rows, 2, [0.01, 0.99]);
      const pehe = (effect: Float64Array) => Math.sqrt(effect.reduce((s, v, i) => s + (v - d.tau[i]) ** 2, 0) / effect.length);
      const peheOf = (weight?: Float64Array) =>
        pehe(predictRows(fitGbdt(input, po.phi, rows, "regression", { kind: "effect", seed: 1299709, weight }), m, rows));
      return { weighted: peheOf(overlapWeights(cf.value, 2)), unweighted: peheOf(), served: pehe(predictCausal(served.predictor, d.frame).effect) };
    });
    const mean = (k: "weighted" | "unweighted") => results.reduce((s, r) => s + r[k], 0) / results.length;
    for (const r of results) expect(r.served).toBeCloseTo(r.weighted, 12);
    expect(mean("weighted")).toBeLessThan(0.8 * mean("unweighted"));
    expect(mean("weighted")).toBeLessThan(0.45); // τ spans [0, 2]; a constant guess has PEHE 0.58
  });
});
