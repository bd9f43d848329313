import { describe, expect, it } from "vitest";
import { predictionFlip } from "../../src/ml/explain/flip";
import type { GbdtModel, Tree } from "../../src/ml/gbdt/model";

/** A tree from explicit node arrays (covers and gains do not matter to the flip search). */
function tree(nodes: { f: number; t?: number; cats?: number[]; dl?: number; l: number; r: number }[], leaves: number[]): Tree {
  return {
    splitFeature: nodes.map((n) => n.f),
    threshold: nodes.map((n) => Math.fround(n.t ?? 0)),
    isCategorical: nodes.map((n) => (n.cats ? 1 : 0)),
    leftCategories: nodes.map((n) => n.cats ?? []),
    defaultLeft: nodes.map((n) => n.dl ?? 0),
    left: nodes.map((n) => n.l),
    right: nodes.map((n) => n.r),
    internalCover: nodes.map(() => 1),
    gain: nodes.map(() => 1),
    leafValue: leaves,
    leafCover: leaves.map(() => 1),
  };
}

const base = { format: "gbdt-v1" as const, bestIteration: 1, featureNames: ["age", "income", "city"], numFeatures: 3 };

// Binary: age <= 30 -> -2, else (income <= 5 -> 0.6, else 2); city in {1,2} -> 1.5 else -0.5; city in {3} -> 5 else 0.
const binary: GbdtModel = {
  ...base,
  objective: "binary",
  numOutputs: 1,
  baseScore: [0],
  classes: ["no", "yes"],
  trees: [
    tree(
      [
        { f: 0, t: 30, l: ~0, r: 1 },
        { f: 1, t: 5, l: ~1, r: ~2 },
      ],
      [-2, 0.6, 2],
    ),
    tree([{ f: 2, cats: [1, 2], l: ~0, r: ~1 }], [1.5, -0.5]),
  ],
};

// Regression: age <= 10 -> 100 else 200; income <= 1 -> 0, <= 2 -> 50, else 500.
const regression: GbdtModel = {
  ...base,
  objective: "regression",
  numOutputs: 1,
  baseScore: [0],
  trees: [
    tree([{ f: 0, t: 10, l: ~0, r: ~1 }], [100, 200]),
    tree(
      [
        { f: 1, t: 1, l: ~0, r: 1 },
        { f: 1, t: 2, l: ~1, r: ~2 },
      ],
      [0, 50, 500],
    ),
  ],
};

const above = (x: number) => {
  const f = new Float32Array([x]);
  new Int32Array(f.buffer)[0] += 1;
  return f[0];
};

describe("prediction flip", () => {
  it("crosses the nearest threshold upward and downward", () => {
    expect(predictionFlip(binary, [25, 3, 0])).toEqual({
      feature: 0,
      featureName: "age",
      from: 25,
      to: above(30),
      new_prediction: 1,
      new_label: "yes",
    });
    expect(predictionFlip(binary, [40, 3, 0])).toMatchObject({ feature: 0, to: 30, new_prediction: 0, new_label: "no" });
  });

  it("uses a category change when no numeric move flips", () => {
    const m: GbdtModel = { ...binary, trees: [...binary.trees, tree([{ f: 2, cats: [3], l: ~0, r: ~1 }], [5, 0])] };
    // age and income are restricted away: only the city can change, and only city 3 flips.
    expect(predictionFlip(m, [25, 3, 0], { features: [1, 2] })).toMatchObject({ feature: 2, from: 0, to: 3, new_label: "yes" });
  });

  it("regression: fewest thresholds crossed that move the prediction by delta", () => {
    expect(predictionFlip(regression, [5, 0.5, 0], { delta: 100 })).toMatchObject({ feature: 0, to: above(10), new_prediction: 200 });
    expect(predictionFlip(regression, [5, 0.5, 0], { delta: 300 })).toMatchObject({ feature: 1, to: above(2), new_prediction: 600 });
    expect(predictionFlip(regression, [5, 0.5, 0], { delta: 1000 })).toBeNull();
    expect(() => predictionFlip(regression, [5, 0.5, 0])).toThrow(/delta/);
  });

  it("fills a missing value", () => {
    // income missing goes right (defaultLeft 0) -> 500; filling it with a value <= 2 drops the prediction.
    const r = predictionFlip(regression, [5, NaN, 0], { delta: 400, features: [1] });
    expect(r).toMatchObject({ feature: 1, to: 1, new_prediction: 100 });
    expect(Number.isNaN(r!.from)).toBe(true);
  });
});
