import { describe, expect, it } from "vitest";
import { causalData } from "../../bench/causal/data";
import { canonicalValue, groupRows, pseudoFromPredictions, readArms, readOutcome, summarizeEffect } from "../../src/ml/causal/estimate";
import { predictCausal, trainCausalSteps } from "../../src/ml/causal/model";
import { MlInputError } from "../../src/ml/errors";
import type { Frame } from "../../src/ml/frame";
import { causalRepresentation } from "./causal-representation";

function trained(frame: Frame) {
  const gen = trainCausalSteps(frame, { representation: causalRepresentation(frame), labelColumn: "y", params: {} });
  for (;;) {
    const r = gen.next();
    if (r.done) return r.value;
  }
}

const text = (name: string, values: (string | null)[]) => ({
  name,
  kind: "categorical" as const,
  storage: "dictionary" as const,
  dictionary: [...new Set(values.filter((v): v is string => v !== null))],
  codes: Int32Array.from(values, (v) => (v === null ? -1 : [...new Set(values.filter((x) => x !== null))].indexOf(v))),
});

describe("causal estimates: reading new data", () => {
  it("canonical values: numbers by value, yes/true/1 alike, case-insensitive", () => {
    expect(canonicalValue("1.0")).toBe(canonicalValue("1"));
    expect(canonicalValue("Yes")).toBe(canonicalValue("true"));
    expect(canonicalValue(" Control ")).toBe("control");
    expect(canonicalValue("2.50")).toBe("2.5");
  });

  it("arms and a binary outcome are matched to the training values; others count as unmatched", () => {
    const frame: Frame = { rowCount: 5, columns: [text("t", ["1.0", "0", "yes", null, "maybe"]), text("y", ["No", "yes", "YES", "no", "?"])] };
    const arms = readArms(frame, "t", ["0", "1"])!;
    expect(Array.from(arms.index)).toEqual([1, 0, 1, -1, -1]);
    expect(arms.unmatched).toBe(1);
    const y = readOutcome(frame, "y", ["no", "yes"])!;
    expect(Array.from(y.y).slice(0, 4)).toEqual([0, 1, 1, 0]);
    expect(y.unmatched).toBe(1);
    expect(readArms(frame, "absent", ["0", "1"])).toBeNull();
  });

  it("a numeric outcome read from text; non-numbers are unmatched", () => {
    const frame: Frame = { rowCount: 3, columns: [text("y", ["1.5", "abc", "-2"])] };
    const y = readOutcome(frame, "y", null)!;
    expect(y.y[0]).toBe(1.5);
    expect(Number.isNaN(y.y[1])).toBe(true);
    expect(y.unmatched).toBe(1);
  });
});

describe("causal estimates: AIPW on new rows from the served models", () => {
  it("recovers the effect on held-out rows, where the naive difference is biased", () => {
    const model = trained(causalData({ n: 3000, seed: 21, effect: 2 }).frame);
    const fresh = causalData({ n: 3000, seed: 22, effect: 2 });
    const p = predictCausal(model.predictor, fresh.frame);
    const arm = readArms(fresh.frame, "treated", ["0", "1"])!.index;
    const y = readOutcome(fresh.frame, "y", null)!.y;
    const phi = pseudoFromPredictions(
      { muTreated: p.outcomeIfTreated, muControl: p.outcomeIfControl, propensity: p.propensity },
      arm,
      y,
      [0.01, 0.99],
    );
    const s = summarizeEffect(phi, ["1"], arm, null, true);
    expect(s.n).toBe(3000);
    expect(s.n_treated! + s.n_control!).toBe(3000);
    expect(Math.abs(s.ate! - 2)).toBeLessThan(4 * s.std_error!);
    expect(s.ci_low!).toBeLessThan(s.ate!);
    // the naive difference on these rows is far off (x1 confounds)
    let st = 0;
    let sc = 0;
    for (let i = 0; i < 3000; i++) arm[i] === 1 ? (st += y[i]) : (sc += y[i]);
    const naive = st / s.n_treated! - sc / s.n_control!;
    expect(Math.abs(naive - 2)).toBeGreaterThan(0.5);
  });

  it("rows without an arm or an outcome are left out", () => {
    const phi = pseudoFromPredictions(
      { muTreated: Float64Array.of(3, 3, 3), muControl: Float64Array.of(1, 1, 1), propensity: Float64Array.of(0.5, 0.5, 0.5, 0.5, 0.5, 0.5) },
      Int32Array.of(1, -1, 0),
      Float64Array.of(4, 2, NaN),
      [0.01, 0.99],
    );
    // row 0: 3 − 1 + (4 − 3)/0.5 = 4
    expect(phi[0]).toBeCloseTo(4, 12);
    expect(Number.isNaN(phi[1]) && Number.isNaN(phi[2])).toBe(true);
    expect(summarizeEffect(phi, ["t"], Int32Array.of(1, -1, 0), null, true)).toMatchObject({ ate: 4, n: 1, std_error: null });
  });

  it("predicted effects alone: a mean without an interval; several arms per arm only", () => {
    const values = Float64Array.of(1, 10, 3, 30);
    const s = summarizeEffect(values, ["b", "c"], null, null, false);
    expect(s.ate).toBeNull();
    expect(s.estimates.map((e) => [e.arm, e.ate, e.std_error])).toEqual([
      ["b", 2, null],
      ["c", 20, null],
    ]);
    expect(s.n_treated).toBeNull();
  });
});

describe("causal estimates: groups", () => {
  it("groups rows by value, largest first, missing values as their own group", () => {
    const frame: Frame = { rowCount: 5, columns: [text("g", ["a", "b", "a", null, "a"])] };
    const g = groupRows(frame, "g", 10);
    expect(g.map((x) => [x.value, Array.from(x.rows)])).toEqual([
      ["a", [0, 2, 4]],
      ["b", [1]],
      [null, [3]],
    ]);
  });

  it("too many distinct values fail naming the limit", () => {
    const frame: Frame = { rowCount: 4, columns: [text("g", ["a", "b", "c", "d"])] };
    expect(() => groupRows(frame, "g", 3)).toThrow(MlInputError);
    expect(() => groupRows(frame, "g", 3)).toThrow(/more than 3 distinct values/);
  });
});

describe("causal explanations", () => {
  it("contributions add up to the row's estimated effect; the text names the treatment and the outcome", async () => {
    const { explainEffects } = await import("../../src/ml/causal/explain");
    const d = causalData({ n: 2000, seed: 31, effect: 1, heterogeneity: 2 });
    const model = trained(d.frame);
    const head = model.head as Record<string, unknown>;
    const p = predictCausal(model.predictor, d.frame);
    const spec = {
      featurizer: model.featurizer,
      treatment_column: String(head.treatment_column),
      outcome_column: String(head.outcome_column),
      control_value: String(head.control_value),
      treated_arms: head.treated_arms as string[],
      effect_scale: String(head.effect_scale),
    };
    const [e] = explainEffects(model.predictor.effect, spec, d.frame, [5]);
    const sum = e.base_value + e.feature_contributions.reduce((s, c) => s + c.contribution, 0);
    expect(sum).toBeCloseTo(p.effect[5], 9);
    expect(e.explanation_text).toMatch(/the effect of treated = '1' \(vs '0'\) on y is estimated at/);
    expect(e.output_scale).toBe("units of y");
    // the effect varies with x2 only: x2 leads
    expect(e.feature_contributions[0].column).toBe("x2");
  });
});
