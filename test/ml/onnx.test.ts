import { describe, expect, it } from "vitest";
import { predictRow } from "../../src/ml/explain/evaluate";
import { emptyTree, type GbdtModel, type Tree } from "../../src/ml/gbdt/model";
import { exportGbdtToOnnx } from "../../src/ml/onnx/export";
import { createSession, runFeatures, toNumbers } from "./helpers/ort-node";

// ---- hand-built trees (nested specs; internal cover = sum of children) ----
type Spec = { leaf: number } | { f: number; t?: number; cats?: number[]; dl?: number; l: Spec; r: Spec };

function tree(spec: Spec): Tree {
  const t = emptyTree();
  const add = (s: Spec): number => {
    if ("leaf" in s) {
      t.leafValue.push(s.leaf), t.leafCover.push(1);
      return ~(t.leafValue.length - 1);
    }
    const i = t.splitFeature.length;
    t.splitFeature.push(s.f), t.threshold.push(Math.fround(s.t ?? 0)), t.isCategorical.push(s.cats ? 1 : 0);
    t.leftCategories.push(s.cats ?? []), t.defaultLeft.push(s.dl ?? 0), t.gain.push(1), t.internalCover.push(1);
    t.left.push(0), t.right.push(0);
    const l = add(s.l);
    t.left[i] = l;
    t.right[i] = add(s.r);
    return i;
  };
  add(spec);
  return t;
}

function model(trees: Tree[], numFeatures: number, objective: GbdtModel["objective"], numOutputs = 1, baseScore?: number[]): GbdtModel {
  return {
    format: "gbdt-v1",
    objective,
    numOutputs,
    baseScore: baseScore ?? new Array(numOutputs).fill(0.1),
    trees,
    numFeatures,
    featureNames: Array.from({ length: numFeatures }, (_, i) => `f${i}`),
    classes: objective === "regression" ? undefined : Array.from({ length: objective === "binary" ? 2 : numOutputs }, (_, k) => `c${k}`),
    bestIteration: trees.length / numOutputs,
  };
}

/** Runs the exported model on the rows and compares every output with the JS reference. */
async function checkModel(m: GbdtModel, rows: number[][]): Promise<number> {
  const session = await createSession(exportGbdtToOnnx(m));
  const F = m.numFeatures;
  const X = Float32Array.from(rows.flat());
  const out = await runFeatures(session, X, rows.length, F);
  let maxDiff = 0;
  rows.forEach((_, i) => {
    const ref = predictRow(m, X.subarray(i * F, (i + 1) * F));
    if (m.objective === "regression") {
      expect(out.prediction.type).toBe("float64");
      maxDiff = Math.max(maxDiff, Math.abs(Number(out.prediction.data[i]) - ref.value));
    } else {
      const C = ref.probabilities!.length;
      const probs = toNumbers(out.probabilities).slice(i * C, (i + 1) * C);
      probs.forEach((p, k) => (maxDiff = Math.max(maxDiff, Math.abs(p - ref.probabilities![k]))));
      const raw = toNumbers(out.raw_score).slice(i * m.numOutputs, (i + 1) * m.numOutputs);
      raw.forEach((r, k) => (maxDiff = Math.max(maxDiff, Math.abs(r - ref.raw[k]))));
      expect(toNumbers(out.label)[i]).toBe(ref.value);
    }
  });
  expect(maxDiff).toBeLessThanOrEqual(1e-5);
  return maxDiff;
}

function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

function randomSpec(rand: () => number, depth: number, scale: number): Spec {
  if (depth === 0 || rand() < 0.15) return { leaf: (rand() * 2 - 1) * scale };
  const f = Math.floor(rand() * 4);
  const dl = rand() < 0.5 ? 1 : 0;
  const l = randomSpec(rand, depth - 1, scale);
  const r = randomSpec(rand, depth - 1, scale);
  if (f === 3) return { f, cats: [0, 1, 2, 3, 4, 5, 6].filter(() => rand() < 0.4), dl, l, r };
  return { f, t: Math.floor(rand() * 20) / 7, dl, l, r }; // thresholds like 0.142857...: float32 rounding matters
}

/** Rows hitting thresholds exactly (as float32), neighbours, NaN and unseen category codes. */
function randomRows(rand: () => number, n: number): number[][] {
  return Array.from({ length: n }, () =>
    [0, 1, 2, 3].map((f) => (rand() < 0.1 ? NaN : f === 3 ? Math.floor(rand() * 9) : Math.floor(rand() * 20) / 7 + (rand() < 0.3 ? 1e-7 : 0))),
  );
}

describe("ONNX export (TreeEnsemble v5, double) run in onnxruntime-web", () => {
  it("numeric splits, missing directions, float32 thresholds", async () => {
    const t = tree({ f: 0, t: 0.1, dl: 1, l: { leaf: 1 }, r: { f: 1, t: -2.5, dl: 0, l: { leaf: 2 }, r: { leaf: 3 } } });
    const rows = [
      [0.1, 0],
      [0.1000001, -3],
      [0.2, -2.5],
      [0.2, 0],
      [NaN, 9],
      [5, NaN],
      [NaN, NaN],
      [-Infinity, Infinity],
    ];
    await checkModel(model([t], 2, "regression"), rows);
  });

  it("categorical membership: listed codes left, unseen codes right, NaN by defaultLeft", async () => {
    const t = tree({ f: 0, cats: [0, 2, 5], dl: 1, l: { leaf: -1 }, r: { f: 0, cats: [1], dl: 0, l: { leaf: 10 }, r: { leaf: 20 } } });
    const m = model([t], 1, "regression", 1, [0]);
    const rows = [[0], [1], [2], [3], [5], [7], [NaN]];
    await checkModel(m, rows);
    const session = await createSession(exportGbdtToOnnx(m));
    const out = await runFeatures(session, Float32Array.from(rows.flat()), rows.length, 1);
    expect(toNumbers(out.prediction)).toEqual([-1, 10, -1, 20, -1, 20, -1]);
  });

  it("categorical set holding code 0: a missing value follows defaultLeft = 0 (right), not code 0", async () => {
    // (a set reaching past code 63 took onnxruntime-web off its small-set path: NaN then went left)
    const t = tree({ f: 0, cats: [0, 2, 64], dl: 0, l: { leaf: 1 }, r: { leaf: 2 } });
    const m = model([t], 1, "regression", 1, [0]);
    const rows = [[NaN], [0], [1], [2], [64]];
    await checkModel(m, rows);
    const session = await createSession(exportGbdtToOnnx(m));
    const out = await runFeatures(session, Float32Array.from(rows.flat()), rows.length, 1);
    expect(toNumbers(out.prediction)).toEqual([2, 1, 2, 1, 1]);
  });

  it("categorical sets with large codes (up to 253) and non-code values", async () => {
    const big = [3, 31, 32, 63, 64, 100, 200, 253];
    const t = tree({ f: 1, cats: big, dl: 0, l: { f: 0, cats: [0, 250], dl: 1, l: { leaf: 1 }, r: { leaf: 2 } }, r: { leaf: 3 } });
    const codes = [0, 3, 4, 31, 32, 33, 63, 64, 65, 100, 199, 200, 252, 253, 254, 2.5, -1, NaN];
    const rows = codes.flatMap((c) => [
      [c, c],
      [250, c],
      [NaN, c],
    ]);
    await checkModel(model([t], 2, "regression"), rows);
  });

  it("regression with large values keeps double precision", async () => {
    const rand = rng(11);
    const trees = Array.from({ length: 60 }, () => tree(randomSpec(rand, 5, 3000)));
    const maxDiff = await checkModel(model(trees, 4, "regression", 1, [9876.54321]), randomRows(rand, 300));
    expect(maxDiff).toBeLessThan(1e-9);
  });

  it("binary: probabilities, label and raw score", async () => {
    const rand = rng(5);
    const trees = [...Array.from({ length: 30 }, () => tree(randomSpec(rand, 4, 1))), tree({ leaf: 0.3 })];
    await checkModel(model(trees, 4, "binary"), randomRows(rand, 200));
  });

  it("multiclass: trees[round * K + k] feed output k, softmax and argmax", async () => {
    const rand = rng(9);
    const trees = Array.from({ length: 3 * 15 }, () => tree(randomSpec(rand, 4, 2)));
    await checkModel(model(trees, 4, "multiclass", 3, [0.1, -0.2, 0.3]), randomRows(rand, 200));
  });

  it("a model whose trees have no split", async () => {
    await checkModel(model([tree({ leaf: 2.5 }), tree({ leaf: -1 })], 3, "regression"), [
      [1, 2, 3],
      [NaN, NaN, NaN],
    ]);
  });
});
