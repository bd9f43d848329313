/**
 * Explanations of anomaly models: exact TreeSHAP over the isolation trees carried onto the score
 * (contributions add up to the served score), the planted outlier column first, the stored file
 * read back bit-identically, and a one-column counterfactual the model confirms.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { type AnomalyExplainer, readAnomalyExplainer } from "../../src/ml/explain/anomaly-file";
import { rawScores } from "../../src/ml/explain/evaluate";
import { explainAnomalies } from "../../src/ml/explain/explain-anomaly";
import { applyFeaturizer } from "../../src/ml/featurize";
import type { Frame } from "../../src/ml/frame";
import { forestAsGbdt } from "../../src/ml/iforest/as-gbdt";
import { pathLengthSums } from "../../src/ml/iforest/score";
import { readForest, storeForest } from "../../src/ml/iforest/stored";
import { Rng } from "../../src/ml/random";
import { buildRepresentation, type Representation } from "../../src/ml/representation/representation";
import { type AnomalyModel, type AnomalyParams, trainAnomalySteps } from "../../src/ml/unsupervised/anomaly";
import { scoreAnomalies } from "./helpers/engine-scores";

const N = 800;
const OUTLIER = 7;

/** amount and qty (integers) and a country; row OUTLIER has an amount far off, its other values ordinary. */
function makeFrame(): Frame {
  const rng = new Rng(3);
  const amount = Float64Array.from({ length: N }, () => 20 + Math.round(rng.next() * 280));
  const qty = Float64Array.from({ length: N }, () => 1 + rng.int(10));
  const country = Int32Array.from({ length: N }, () => rng.int(3));
  amount[OUTLIER] = 9400;
  qty[OUTLIER] = 5;
  country[OUTLIER] = 1;
  for (let i = 3; i < N; i += 97) qty[i] = NaN;
  return {
    rowCount: N,
    columns: [
      { name: "amount", kind: "numeric", storage: "numeric", values: amount },
      { name: "qty", kind: "numeric", storage: "numeric", values: qty },
      { name: "country", kind: "categorical", storage: "dictionary", codes: country, dictionary: ["FR", "DE", "IT"] },
    ],
  };
}

let frame: Frame;
let rep: Representation;

function train(params: AnomalyParams): AnomalyModel {
  const gen = trainAnomalySteps(frame, { representation: rep, params });
  for (;;) {
    const r = gen.next();
    if (r.done) return r.value;
  }
}

/** The explainer as the job reads it: the model's stored file, parsed back. */
function explainerOf(model: AnomalyModel): AnomalyExplainer {
  const file = model.files?.find((f) => f.name === "iforest.json");
  expect(file).toBeDefined();
  const ex = readAnomalyExplainer(JSON.parse(new TextDecoder().decode(file!.bytes)), model.featurizer.features.length);
  expect(ex).not.toBeNull();
  return ex!;
}

const ROWS = [OUTLIER, 0, 1, 2, 3, 50, 400];

beforeAll(() => {
  frame = makeFrame();
  rep = buildRepresentation(frame, { seed: 0 });
});

describe("isolation forest explanations", () => {
  let model: AnomalyModel;
  beforeAll(() => {
    model = train({ n_estimators: 100 });
  });

  it("the stored forest reads back bit-identically, path lengths included", () => {
    const back = readForest(JSON.parse(JSON.stringify(storeForest(model.scorer.forest))))!;
    expect(back).not.toBeNull();
    for (const key of ["roots", "feature", "threshold", "left", "nanLeft", "pathLength", "size"] as const) {
      expect(Array.from(back[key])).toEqual(Array.from(model.scorer.forest[key]));
    }
  });

  it("the forest as a GBDT gives the same path-length sums (what TreeSHAP explains)", () => {
    const m = applyFeaturizer(model.featurizer, frame);
    const sums = new Float64Array(N);
    pathLengthSums(model.scorer.forest, m.data, 0, N, sums);
    const gbdt = forestAsGbdt(model.scorer.forest);
    for (let i = 0; i < N; i += 13) {
      expect(rawScores(gbdt, m.data.subarray(i * m.numFeatures, (i + 1) * m.numFeatures))[0]).toBeCloseTo(sums[i], 9);
    }
  });

  it("contributions add up to the served anomaly score; every input column appears once", () => {
    const served = scoreAnomalies(model.scorer, frame);
    const out = explainAnomalies(explainerOf(model), model.featurizer, frame, ROWS);
    out.forEach((e, i) => {
      const sum = e.base_value + e.feature_contributions.reduce((s, c) => s + c.contribution, 0);
      expect(Math.abs(sum - served.scores[ROWS[i]])).toBeLessThan(1e-12);
      expect(e.anomaly_score).toBe(served.scores[ROWS[i]]);
      expect(e.prediction).toBe(served.isAnomaly[ROWS[i]] === 1);
      expect(e.feature_contributions.map((c) => c.column).sort()).toEqual(["amount", "country", "qty"]);
      const mags = e.feature_contributions.map((c) => Math.abs(c.contribution));
      expect(mags).toEqual([...mags].sort((a, b) => b - a));
    });
    // the base is the score of the average path length: between the ordinary rows' scores
    expect(out[0].base_value).toBeGreaterThan(0.3);
    expect(out[0].base_value).toBeLessThan(0.7);
  });

  it("the planted outlier: flagged, amount by far the largest (positive) contribution, and the text says so", () => {
    const [e] = explainAnomalies(explainerOf(model), model.featurizer, frame, [OUTLIER]);
    expect(e.prediction).toBe(true);
    const [top, second] = e.feature_contributions;
    expect(top).toMatchObject({ column: "amount", value: 9400 });
    expect(top.contribution).toBeGreaterThan(0);
    expect(top.contribution).toBeGreaterThan(5 * Math.abs(second.contribution));
    expect(e.explanation_text).toMatch(
      /^This row is unusual \(anomaly score 0\.\d+, above the threshold 0\.\d+\) mainly because amount is 9400 \(typical: \d+–\d+\)/,
    );
    expect(e.explanation_label).toBe("amount=9400");
    expect(e.explanation_gloss).toMatch(/TreeSHAP/);
  });

  it("the flip sets amount to a value near the usual ones, and the model confirms the row is no longer flagged", () => {
    const ex = explainerOf(model);
    const [e] = explainAnomalies(ex, model.featurizer, frame, [OUTLIER]);
    expect(e.prediction_flip).not.toBeNull();
    const flip = e.prediction_flip!;
    expect(flip).toMatchObject({ column: "amount", from: 9400, new_prediction: false });
    expect(typeof flip.to).toBe("number");
    expect(flip.to as number).toBeLessThan(9400);
    expect(Number.isInteger(flip.to)).toBe(true); // integer data: a whole number
    const changed: Frame = {
      ...frame,
      columns: frame.columns.map((c) =>
        c.name === "amount" && c.storage === "numeric"
          ? { ...c, values: Float64Array.from(c.values, (v, i) => (i === OUTLIER ? (flip.to as number) : v)) }
          : c,
      ),
    };
    const after = scoreAnomalies(model.scorer, changed);
    expect(after.isAnomaly[OUTLIER]).toBe(0);
    expect(after.scores[OUTLIER]).toBeCloseTo(flip.new_anomaly_score, 12);
    expect(e.explanation_text).toMatch(new RegExp(`; with amount of ${flip.to} it would not be flagged\\.$`));
  });

  it("an ordinary row: not flagged, no flip, a reason and a sentence that says so", () => {
    const out = explainAnomalies(explainerOf(model), model.featurizer, frame, ROWS.slice(1));
    const ordinary = out.filter((e) => !e.prediction);
    expect(ordinary.length).toBeGreaterThan(0);
    for (const e of ordinary) {
      expect(e.prediction_flip).toBeNull();
      expect(e.flip_reason).toMatch(/not flagged/);
      expect(e.explanation_text).toMatch(/^This row is not flagged as unusual/);
    }
  });

  it("a file that is not an explainer (or of another width) reads as null", () => {
    expect(readAnomalyExplainer({ format: "nope" }, 3)).toBeNull();
    expect(readAnomalyExplainer(JSON.parse(new TextDecoder().decode(model.files![0].bytes)), 4)).toBeNull();
  });
});

describe("blended explanations", () => {
  it("add up to the blended score; the outlier's amount still leads", () => {
    const model = train({ n_estimators: 60, method: "blended" });
    const ex = explainerOf(model);
    expect(ex.method).toBe("blended");
    expect(ex.errorShares!.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    const served = scoreAnomalies(model.scorer, frame);
    const out = explainAnomalies(ex, model.featurizer, frame, ROWS);
    out.forEach((e, i) => {
      const sum = e.base_value + e.feature_contributions.reduce((s, c) => s + c.contribution, 0);
      expect(Math.abs(sum - served.scores[ROWS[i]])).toBeLessThan(1e-12);
    });
    expect(out[0].prediction).toBe(true);
    expect(out[0].feature_contributions[0]).toMatchObject({ column: "amount" });
    expect(out[0].feature_contributions[0].contribution).toBeGreaterThan(0);
    expect(out[0].explanation_gloss).toMatch(/reconstruction error/);
  });
});
