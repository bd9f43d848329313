import { describe, expect, it } from "vitest";
import { rawScores } from "../../src/ml/explain/evaluate";
import { TreeShapExplainer } from "../../src/ml/explain/treeshap";
import { emptyTree, type GbdtModel, type Tree } from "../../src/ml/gbdt/model";
import { treeShap } from "./helpers/tree-shap";

// ---- hand-built trees: nested specs, internal covers = sum of the children's ----
type Spec = { leaf: number; cover: number } | { f: number; t?: number; cats?: number[]; dl?: number; l: Spec; r: Spec };

function tree(spec: Spec): Tree {
  const t = emptyTree();
  const add = (s: Spec): [number, number] => {
    if ("leaf" in s) {
      t.leafValue.push(s.leaf), t.leafCover.push(s.cover);
      return [~(t.leafValue.length - 1), s.cover];
    }
    const i = t.splitFeature.length;
    t.splitFeature.push(s.f), t.threshold.push(s.t ?? 0), t.isCategorical.push(s.cats ? 1 : 0);
    t.leftCategories.push(s.cats ?? []), t.defaultLeft.push(s.dl ?? 0), t.gain.push(1);
    t.left.push(0), t.right.push(0), t.internalCover.push(0);
    const [l, lc] = add(s.l);
    const [r, rc] = add(s.r);
    (t.left[i] = l), (t.right[i] = r), (t.internalCover[i] = lc + rc);
    return [i, lc + rc];
  };
  add(spec);
  return t;
}

function model(trees: Tree[], numFeatures: number, objective: GbdtModel["objective"] = "regression", numOutputs = 1): GbdtModel {
  return {
    format: "gbdt-v1",
    objective,
    numOutputs,
    baseScore: Array.from({ length: numOutputs }, (_, k) => 0.25 * (k + 1)),
    trees,
    numFeatures,
    featureNames: Array.from({ length: numFeatures }, (_, i) => `f${i}`),
    bestIteration: trees.length / numOutputs,
  };
}

// ---- brute-force oracle: Shapley values of the path-dependent value function by enumeration ----
function condExpectation(t: Tree, node: number, row: ArrayLike<number>, known: Set<number>): number {
  if (node < 0) return t.leafValue[~node];
  const f = t.splitFeature[node];
  if (known.has(f)) {
    // Same rule as the model (NaN, categorical, float32 threshold) via a one-row raw score.
    const v = row[f];
    const left = Number.isNaN(v) ? t.defaultLeft[node] === 1 : t.isCategorical[node] ? t.leftCategories[node].includes(v) : v <= t.threshold[node];
    return condExpectation(t, left ? t.left[node] : t.right[node], row, known);
  }
  const cover = (c: number) => (c < 0 ? t.leafCover[~c] : t.internalCover[c]);
  const l = t.left[node],
    r = t.right[node];
  return (cover(l) * condExpectation(t, l, row, known) + cover(r) * condExpectation(t, r, row, known)) / t.internalCover[node];
}

function bruteShapley(m: GbdtModel, row: ArrayLike<number>, output: number): number[] {
  const M = m.numFeatures;
  const fact = (n: number): number => (n <= 1 ? 1 : n * fact(n - 1));
  const value = (mask: number) => {
    const known = new Set<number>();
    for (let j = 0; j < M; j++) if (mask & (1 << j)) known.add(j);
    let s = 0;
    m.trees.forEach((t, i) => {
      if (i % m.numOutputs === output) s += condExpectation(t, t.splitFeature.length ? 0 : -1, row, known);
    });
    return s;
  };
  const phi = new Array(M).fill(0);
  for (let i = 0; i < M; i++) {
    for (let mask = 0; mask < 1 << M; mask++) {
      if (mask & (1 << i)) continue;
      const size = popcount(mask);
      phi[i] += ((fact(size) * fact(M - size - 1)) / fact(M)) * (value(mask | (1 << i)) - value(mask));
    }
  }
  return phi;
}

function popcount(x: number): number {
  let c = 0;
  for (; x; x &= x - 1) c++;
  return c;
}

function checkAgainstOracle(m: GbdtModel, row: number[]): void {
  const r = treeShap(m, Float32Array.from(row));
  const raw = rawScores(m, Float32Array.from(row));
  for (let k = 0; k < m.numOutputs; k++) {
    const phi = r.contributions[k];
    const sum = phi.reduce((a, b) => a + b, r.expectedValue[k]);
    expect(Math.abs(sum - raw[k])).toBeLessThan(1e-6);
    const brute = bruteShapley(m, row, k);
    for (let j = 0; j < m.numFeatures; j++) expect(Math.abs(phi[j] - brute[j])).toBeLessThan(1e-9);
  }
}

// ---- random trees over 4 features (numeric and categorical, repeated features, NaN) ----
function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

function randomSpec(rand: () => number, depth: number): Spec {
  if (depth === 0 || rand() < 0.2) return { leaf: Math.round((rand() * 10 - 5) * 100) / 100, cover: 1 + Math.floor(rand() * 20) };
  const f = Math.floor(rand() * 4);
  const dl = rand() < 0.5 ? 1 : 0;
  const l = randomSpec(rand, depth - 1);
  const r = randomSpec(rand, depth - 1);
  if (f === 3) return { f, cats: [0, 1, 2, 3, 4].filter(() => rand() < 0.4), dl, l, r };
  return { f, t: Math.fround(Math.floor(rand() * 8) / 2), dl, l, r };
}

function randomRow(rand: () => number): number[] {
  return [0, 1, 2, 3].map((f) => (rand() < 0.15 ? NaN : f === 3 ? Math.floor(rand() * 6) : Math.floor(rand() * 9) / 2));
}

describe("TreeSHAP", () => {
  it("matches enumeration on a numeric tree and on a tree repeating a feature", () => {
    const t1 = tree({ f: 0, t: 1.5, l: { f: 1, t: 0, l: { leaf: 3, cover: 4 }, r: { leaf: -1, cover: 2 } }, r: { leaf: 7, cover: 6 } });
    const t2 = tree({
      f: 2,
      t: 10,
      l: { f: 2, t: 5, l: { leaf: 1, cover: 3 }, r: { f: 0, t: 0.5, l: { leaf: 2, cover: 1 }, r: { leaf: 4, cover: 2 } } },
      r: { leaf: -3, cover: 5 },
    });
    const m = model([t1, t2], 3);
    for (const row of [
      [0, -1, 3],
      [2, 1, 7],
      [1, 0.5, 20],
      [0.5, 0, 5],
    ])
      checkAgainstOracle(m, row);
  });

  it("follows categorical membership (unseen right) and missing directions", () => {
    const t = tree({
      f: 1,
      cats: [1, 3],
      dl: 1,
      l: { f: 0, t: 2, dl: 0, l: { leaf: 5, cover: 3 }, r: { leaf: 1, cover: 1 } },
      r: { leaf: -2, cover: 4 },
    });
    const m = model([t, tree({ leaf: 0.5, cover: 8 })], 2);
    for (const row of [
      [1, 3],
      [1, 2],
      [1, 9],
      [NaN, 1],
      [3, NaN],
      [NaN, NaN],
    ])
      checkAgainstOracle(m, row);
    // Row with an unseen code (9) on f1: goes right to -2, so f1 pushes the score down.
    const r = treeShap(m, [1, 9]);
    expect(r.contributions[0][1]).toBeLessThan(0);
  });

  it("explains each output of a multiclass model", () => {
    const trees = [0, 1, 2, 3, 4, 5].map((i) =>
      tree({
        f: i % 3,
        t: 1,
        dl: i % 2,
        l: { leaf: i, cover: 2 + i },
        r: { f: (i + 1) % 3, t: 2, l: { leaf: -i, cover: 3 }, r: { leaf: 1, cover: 1 } },
      }),
    );
    const m = model(trees, 3, "multiclass", 3);
    for (const row of [
      [0, 0, 0],
      [2, 3, NaN],
      [1, 1.5, 4],
    ])
      checkAgainstOracle(m, row);
  });

  it("matches enumeration on random trees with 4 features", () => {
    const rand = rng(7);
    for (let trial = 0; trial < 40; trial++) {
      const trees = [0, 1, 2].map(() => tree(randomSpec(rand, 5)));
      const m = model(trees, 4);
      for (let i = 0; i < 5; i++) checkAgainstOracle(m, randomRow(rand));
    }
  });

  it("reuses its buffers: explainInto accumulates into a caller buffer", () => {
    const rand = rng(3);
    const m = model(
      [0, 1, 2, 3].map(() => tree(randomSpec(rand, 6))),
      4,
    );
    const ex = new TreeShapExplainer(m);
    const out = new Float64Array(4);
    const row = randomRow(rand);
    ex.explainInto(row, out);
    expect(Array.from(out)).toEqual(Array.from(ex.explain(row).contributions[0]));
  });
});
