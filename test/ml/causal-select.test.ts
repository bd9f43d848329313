import { describe, expect, it } from "vitest";
import { causalData } from "../../bench/causal/data";
import { type CausalParams, predictCausal, trainCausalSteps } from "../../src/ml/causal/model";
import { selectLearner, weightedLoss } from "../../src/ml/causal/select";
import { fixLastFeature } from "../../src/ml/causal/specialize";
import type { Frame } from "../../src/ml/frame";
import { predict } from "../../src/ml/gbdt/predict";
import { trainGbdt } from "../../src/ml/gbdt/train";
import { Rng } from "../../src/ml/random";
import { causalRepresentation } from "./causal-representation";

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

function train(frame: Frame, params: CausalParams = {}) {
  const gen = trainCausalSteps(frame, { representation: causalRepresentation(frame), labelColumn: "y", params });
  for (;;) {
    const r = gen.next();
    if (r.done) return r.value;
  }
}

/** Four uniform features on [-1, 1], Y = μ_0(x) + τ(x)·T + noise·N(0, 1), P(T = 1) = e(x). */
function designed(n: number, seed: number, mu0: (x: number[]) => number, tau: (x: number[]) => number, e: (x: number[]) => number, noise: number) {
  const rng = new Rng(seed);
  const X = [0, 1, 2, 3].map(() => new Float64Array(n));
  const t = new Float64Array(n);
  const y = new Float64Array(n);
  const truth = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = X.map((col) => (col[i] = 2 * rng.next() - 1));
    t[i] = rng.next() < e(x) ? 1 : 0;
    truth[i] = tau(x);
    const z = Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
    y[i] = mu0(x) + truth[i] * t[i] + noise * z;
  }
  const numeric = (name: string, values: Float64Array) => ({ name, kind: "numeric" as const, storage: "numeric" as const, values });
  const frame: Frame = { rowCount: n, columns: [...X.map((v, f) => numeric(`x${f + 1}`, v)), numeric("treated", t), numeric("y", y)] };
  return { frame, tau: truth };
}

const pehe = (effect: Float64Array, tau: Float64Array) => Math.sqrt(effect.reduce((s, v, i) => s + (v - tau[i]) ** 2, 0) / tau.length);

interface LearnerOutput {
  served: Record<string, number>;
  candidate_losses: Record<string, number>;
  served_loss: number;
}

/** The learner with the largest weight in the served mix. */
const leading = (served: Record<string, number>) => Object.entries(served).sort((a, b) => b[1] - a[1])[0][0];

describe("causal learners: one tree ensemble per CATE", () => {
  // a small regression GBDT on 3 features, the last one a 0/1 column
  const n = 500;
  const rng = new Rng(3);
  const data = new Float32Array(n * 3);
  const label = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    data[i * 3] = rng.next();
    data[i * 3 + 1] = rng.next();
    data[i * 3 + 2] = rng.next() < 0.5 ? 1 : 0;
    label[i] = Math.sin(4 * data[i * 3]) + data[i * 3 + 2] * (1 + data[i * 3 + 1]) + 0.1 * rng.next();
  }
  const smallGbdt = (seed: number) =>
    trainGbdt({
      data,
      numRows: n,
      numFeatures: 3,
      categorical: [false, false, false],
      label,
      params: { objective: "regression", maxRounds: 40, seed },
    }).model;

  it("the T-learner served on a numeric outcome is outcome_if_treated − outcome_if_control, as one ensemble", () => {
    const d = causalData({ n: 800, seed: 32, effect: 1, heterogeneity: 1, confounding: 1 });
    const p = predictCausal(train(d.frame, { learner: "t" }).predictor, d.frame);
    // the blend stores scaled leaves as float32 (../gbdt/blend): equal to float32 rounding
    for (let i = 0; i < d.tau.length; i++) expect(p.effect[i]).toBeCloseTo(p.outcomeIfTreated[i] - p.outcomeIfControl[i], 5);
  });

  it("fixing the last feature gives the model's predictions at that value, on the other features only", () => {
    const m = smallGbdt(1);
    expect(m.trees.some((t) => t.splitFeature.includes(2))).toBe(true);
    for (const v of [0, 1]) {
      const fixed = fixLastFeature(m, v);
      expect(fixed.numFeatures).toBe(2);
      expect(fixed.trees.some((t) => t.splitFeature.includes(2))).toBe(false);
      const two = new Float32Array(n * 2);
      const three = Float32Array.from(data);
      for (let i = 0; i < n; i++) {
        two[i * 2] = data[i * 3];
        two[i * 2 + 1] = data[i * 3 + 1];
        three[i * 3 + 2] = v;
      }
      const want = predict(m, three, n);
      const got = predict(fixed, two, n);
      for (let i = 0; i < n; i++) expect(got[i]).toBe(want[i]);
    }
  });
});

describe("causal learners: the selection", () => {
  it("the candidate closest to the pseudo-outcomes' mean wins; a blend when two err independently", () => {
    const n = 4000;
    const rng = new Rng(5);
    const tau = Float64Array.from({ length: n }, (_, j) => Math.sin(j / 50));
    const phi = Float64Array.from(tau, (v) => v + 4 * (rng.next() - 0.5));
    const weight = Float64Array.from({ length: n }, () => 0.5 + rng.next());
    const near = Float64Array.from(tau, (v) => v + 0.1 * (rng.next() - 0.5));
    const biased = Float64Array.from(tau, (v) => v + 0.5);
    const flat = new Float64Array(n);
    const one = selectLearner(
      ["t", "s", "x"],
      [
        {
          oof: new Map([
            ["t", biased],
            ["s", near],
            ["x", flat],
          ]),
          phi,
          weight,
        },
      ],
      1,
    );
    expect(one.weights).toEqual({ s: 1 });
    expect(one.losses.s!).toBeLessThan(one.losses.t!);
    expect(one.loss).toBe(weightedLoss(near, phi, weight));
    // two unbiased candidates with independent errors: their average is closer than either
    const noisyA = Float64Array.from(tau, (v) => v + 2 * (rng.next() - 0.5));
    const noisyB = Float64Array.from(tau, (v) => v + 2 * (rng.next() - 0.5));
    const two = selectLearner(
      ["t", "dr"],
      [
        {
          oof: new Map([
            ["t", noisyA],
            ["dr", noisyB],
          ]),
          phi,
          weight,
        },
      ],
      1,
    );
    expect(Object.keys(two.weights).sort()).toEqual(["dr", "t"]);
    expect(two.loss).toBeLessThan(Math.min(two.losses.t!, two.losses.dr!));
  });

  it("a constant effect on complex outcome surfaces: the constant leads, DR scores below T and S, far better than T", () => {
    const d = designed(
      3000,
      2,
      (x) => 3 * Math.sin(3 * x[0]) + 3 * Math.cos(3 * x[1]) + 2 * x[2] * x[3],
      () => 1,
      (x) => sigmoid(x[0] + x[1]),
      0.5,
    );
    const auto = train(d.frame);
    const l = auto.output.learner as LearnerOutput;
    expect(leading(l.served)).toBe("ate");
    expect(l.candidate_losses.ate).toBeLessThan(Math.min(l.candidate_losses.t, l.candidate_losses.s, l.candidate_losses.x));
    expect(l.candidate_losses.dr).toBeLessThan(Math.min(l.candidate_losses.t, l.candidate_losses.s));
    const autoPehe = pehe(predictCausal(auto.predictor, d.frame).effect, d.tau);
    const tPehe = pehe(predictCausal(train(d.frame, { learner: "t" }).predictor, d.frame).effect, d.tau);
    expect(autoPehe).toBeLessThan(0.5 * tPehe);
  });

  it("no effect at all on a complex outcome surface: the S-learner leads", () => {
    const d = designed(
      3000,
      2,
      (x) => 3 * Math.sin(3 * x[0]) + 2 * x[1] * x[1],
      () => 0,
      (x) => sigmoid(x[0]),
      0.3,
    );
    const auto = train(d.frame);
    const l = auto.output.learner as LearnerOutput;
    expect(leading(l.served)).toBe("s");
    expect(l.candidate_losses.s).toBeLessThan(Math.min(l.candidate_losses.t, l.candidate_losses.dr));
  });

  it("a fixed learner is served as given, unscored; the average effect does not depend on the learner", () => {
    const d = causalData({ n: 800, seed: 31, effect: 1, heterogeneity: 1, confounding: 1 });
    const fixed = train(d.frame, { learner: "x" });
    const l = fixed.output.learner as LearnerOutput;
    expect(l.served).toEqual({ x: 1 });
    expect(l.candidate_losses).toBeNull();
    const auto = train(d.frame);
    for (const k of ["ate", "std_error", "ci_low", "ci_high"]) expect(fixed.output[k]).toBe(auto.output[k]);
  });
});

describe("causal: the average effect's 95% interval covers the truth", () => {
  // the interval is AIPW's on the cross-fitted φ, the same for every learner (test above): the
  // T-learner keeps the loops short
  const coverage = (seeds: number, n: number, confounding: number) => {
    let covered = 0;
    for (let s = 0; s < seeds; s++) {
      const d = causalData({ n, seed: 7000 + s, effect: 1, heterogeneity: 1, confounding });
      const o = train(d.frame, { learner: "t" }).output as { ci_low: number; ci_high: number };
      if (o.ci_low <= d.populationAte && d.populationAte <= o.ci_high) covered++;
    }
    return covered / seeds;
  };

  it("good overlap: in at least 90% of 30 seeds", () => {
    expect(coverage(30, 1000, 1)).toBeGreaterThanOrEqual(0.9);
  });

  it("poor overlap (P(T=1) = sigmoid(6·x1), ~10% of rows past the clip bounds): in at least 90% of 20 seeds", () => {
    expect(coverage(20, 2000, 3)).toBeGreaterThanOrEqual(0.9);
  });
});
