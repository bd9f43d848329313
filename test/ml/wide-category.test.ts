/**
 * A category with more levels than one byte of GBDT bins holds (254): the levels past the first
 * 254 by frequency get further features (`column.rare1`, …) when each has rows enough, so a
 * prediction model learns them, and its ONNX export (what the Worker serves) agrees with the
 * engine; a column of 254 levels or fewer keeps its one feature.
 */
import { describe, expect, it } from "vitest";
import { CATEGORY_EXTRA_LEVEL_MIN_ROWS, CATEGORY_LEVELS_PER_FEATURE } from "../../src/core/limits";
import { applyFeaturizer, buildFeaturizer, featureKinds } from "../../src/ml/featurize";
import type { Frame } from "../../src/ml/frame";
import { predict } from "../../src/ml/gbdt/predict";
import { exportGbdtToOnnx } from "../../src/ml/onnx/export";
import { trainPredictionModel } from "../../src/ml/prediction/train";
import { Rng } from "../../src/ml/random";
import { buildRepresentation, parseRepresentation } from "../../src/ml/representation/representation";
import { createSession, runFeatures, toNumbers } from "./helpers/ort-node";

const LEVELS = 300;
/** Rows of each of the 254 frequent levels, and of each rarer one (enough to be kept). */
const FREQUENT_ROWS = 130;
const RARE_ROWS = CATEGORY_EXTRA_LEVEL_MIN_ROWS + 10;

/**
 * `region` with LEVELS levels, `noise` numeric, and `label`: "no" on every frequent level, and on
 * the rarer levels "yes" for every other level: only those rare levels carry the label.
 */
function wideFrame(seed: number): { frame: Frame; level: Int32Array } {
  const level: number[] = [];
  for (let l = 0; l < LEVELS; l++) {
    const rows = l < CATEGORY_LEVELS_PER_FEATURE ? FREQUENT_ROWS : RARE_ROWS;
    for (let i = 0; i < rows; i++) level.push(l);
  }
  const rng = new Rng(seed);
  const order = Int32Array.from(level);
  rng.shuffle(order);
  const n = order.length;
  const yes = (l: number) => l >= CATEGORY_LEVELS_PER_FEATURE && l % 2 === 0;
  const frame: Frame = {
    rowCount: n,
    columns: [
      { name: "region", kind: "categorical", storage: "dictionary", codes: order, dictionary: Array.from({ length: LEVELS }, (_, l) => `r${l}`) },
      { name: "noise", kind: "numeric", storage: "numeric", values: Float64Array.from({ length: n }, () => rng.next()) },
      {
        name: "label",
        kind: "categorical",
        storage: "dictionary",
        codes: Int32Array.from(order, (l) => (yes(l) ? 1 : 0)),
        dictionary: ["no", "yes"],
      },
    ],
  };
  return { frame, level: order };
}

describe("a category with more than 254 levels", () => {
  it("wide-cat-featurizer: keeps its rarer levels in a second feature, NaN on the first feature's levels", () => {
    const { frame, level } = wideFrame(1);
    const spec = buildFeaturizer(frame, { labelColumn: "label" });
    const region = spec.features.filter((f) => f.source === "region");
    expect(region.map((f) => [f.name, f.vocabulary?.length])).toEqual([
      ["region", CATEGORY_LEVELS_PER_FEATURE],
      ["region.rare1", LEVELS - CATEGORY_LEVELS_PER_FEATURE],
    ]);
    expect(featureKinds(spec).slice(0, 2)).toEqual([
      { type: "categorical", cardinality: CATEGORY_LEVELS_PER_FEATURE },
      { type: "categorical", cardinality: LEVELS - CATEGORY_LEVELS_PER_FEATURE },
    ]);
    const X = applyFeaturizer(spec, frame);
    const i = level.indexOf(LEVELS - 1);
    expect(Number.isNaN(X.data[i * X.numFeatures])).toBe(true);
    expect(region[1].vocabulary![X.data[i * X.numFeatures + 1]]).toBe(`r${LEVELS - 1}`);
    const j = level.indexOf(0);
    expect(region[0].vocabulary![X.data[j * X.numFeatures]]).toBe("r0");
    expect(Number.isNaN(X.data[j * X.numFeatures + 1])).toBe(true);
  });

  it("wide-cat-min-rows: levels past the first 254 with too few rows count as missing, as before", () => {
    const n = CATEGORY_LEVELS_PER_FEATURE * 3 + 10;
    const codes = Int32Array.from({ length: n }, (_, i) =>
      i < CATEGORY_LEVELS_PER_FEATURE * 3 ? i % CATEGORY_LEVELS_PER_FEATURE : CATEGORY_LEVELS_PER_FEATURE + (i % 10),
    );
    const dictionary = Array.from({ length: CATEGORY_LEVELS_PER_FEATURE + 10 }, (_, l) => `v${l}`);
    const spec = buildFeaturizer({ rowCount: n, columns: [{ name: "c", kind: "categorical", storage: "dictionary", codes, dictionary }] });
    expect(spec.features.map((f) => [f.name, f.vocabulary?.length])).toEqual([["c", CATEGORY_LEVELS_PER_FEATURE]]);
    expect(spec.columns[0].reason).toBe(
      `${CATEGORY_LEVELS_PER_FEATURE + 10} categories: the ${CATEGORY_LEVELS_PER_FEATURE} most frequent are kept, rarer ones count as missing`,
    );
  });

  it("wide-cat-learned: a prediction model learns the label carried by the rare levels, and ONNX agrees with the engine", async () => {
    const { frame } = wideFrame(2);
    const res = trainPredictionModel(frame, { labelColumn: "label", params: { search: "off", max_rounds: 30, seed: 0 } });
    expect(res.model.featureNames).toContain("region.rare1");
    // fresh rows, as an inference file brings them (its own dictionary order)
    const { frame: fresh, level: freshLevel } = wideFrame(3);
    const X = applyFeaturizer(res.featurizer, fresh);
    const p = predict(res.model, X.data, X.numRows);
    let rareRight = 0;
    let rare = 0;
    freshLevel.forEach((l, i) => {
      if (l < CATEGORY_LEVELS_PER_FEATURE) return;
      rare++;
      if (p[i] > 0.5 === (l % 2 === 0)) rareRight++;
    });
    // merged into missing (the old cap), these rows could only be told apart at chance
    expect(rareRight / rare).toBeGreaterThan(0.99);

    const session = await createSession(exportGbdtToOnnx(res.model));
    const out = await runFeatures(session, X.data, X.numRows, X.numFeatures);
    const onnx = toNumbers(out.probabilities).filter((_, j) => j % 2 === 1);
    let diff = 0;
    for (let i = 0; i < X.numRows; i++) diff = Math.max(diff, Math.abs(onnx[i] - p[i]));
    expect(diff).toBeLessThanOrEqual(1e-5);
  });
});

describe("a stored representation from before the further category features", () => {
  it("wide-cat-rep-v3: is built again when it capped a category of more than 254 levels, else read as it is", () => {
    const { frame } = wideFrame(4);
    const rep = buildRepresentation(frame, { encoder: false });
    // as representation-v3 stored it: `region` alone, its first 254 levels
    const capped = {
      ...rep,
      format: "representation-v3",
      featurizer: { ...rep.featurizer, features: rep.featurizer.features.filter((f) => f.name !== "region.rare1") },
    };
    capped.bins = capped.featurizer.features.map((f) => rep.bins[rep.featurizer.features.indexOf(f)]);
    expect(parseRepresentation(JSON.stringify(capped))).toBeNull();
    const narrow = buildRepresentation({ ...frame, columns: frame.columns.filter((c) => c.name !== "region") }, { encoder: false });
    const back = parseRepresentation(JSON.stringify({ ...narrow, format: "representation-v3" }));
    expect(back).toEqual(narrow);
  });
});
