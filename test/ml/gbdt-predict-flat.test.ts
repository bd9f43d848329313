/**
 * The compiled, blocked predictor (src/ml/gbdt/predict.ts + flat.ts) against a plain traversal
 * written straight from the model.ts semantics: results must be bit-identical (Object.is per
 * value), on random models with numeric, categorical (narrow and multi-word) and NaN splits,
 * single-leaf trees, every objective, awkward inputs and row counts around the block sizes.
 */
import { describe, expect, it } from "vitest";
import { flatten, orderKey, thresholdKey } from "../../src/ml/gbdt/flat";
import { emptyTree, type GbdtModel, type Objective, type Tree } from "../../src/ml/gbdt/model";
import { transformScores } from "../../src/ml/gbdt/objective";
import { predict, predictRaw } from "../../src/ml/gbdt/predict";
import { trainGbdt } from "../../src/ml/gbdt/train";
import { Rng } from "../../src/ml/random";

/** Reference: walk each tree row by row, summing per output in tree order from baseScore. */
function referenceRaw(model: GbdtModel, data: Float32Array, n: number, numTrees = model.trees.length): Float64Array {
  const K = model.numOutputs;
  const F = model.numFeatures;
  const out = new Float64Array(n * K);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < K; k++) out[i * K + k] = model.baseScore[k];
    model.trees.slice(0, Math.max(0, numTrees)).forEach((t, ti) => {
      let node = t.left.length ? 0 : -1;
      while (node >= 0) {
        const x = data[i * F + t.splitFeature[node]];
        let left: boolean;
        if (Number.isNaN(x)) left = t.defaultLeft[node] === 1;
        else if (t.isCategorical[node]) left = t.leftCategories[node].includes(x);
        else left = x <= t.threshold[node];
        node = left ? t.left[node] : t.right[node];
      }
      out[i * K + (ti % K)] += t.leafValue[~node];
    });
  }
  return out;
}

const pick = <T>(rng: Rng, xs: T[]): T => xs[Math.floor(rng.next() * xs.length)];
const f32 = (x: number) => Math.fround(x);

/** A random tree of up to maxLeaves leaves over features whose kind is cat[f]. */
function randomTree(rng: Rng, F: number, cat: boolean[], maxCode: number[], thresholds: number[][], maxLeaves: number): Tree {
  const t = emptyTree();
  const leaves = 1 + Math.floor(rng.next() * maxLeaves);
  // grow by splitting random leaves; leaves are child slots holding -1 - leafIndex
  const newLeaf = () => {
    t.leafValue.push((rng.next() - 0.5) * 10 ** Math.floor(rng.next() * 6 - 3));
    t.leafCover.push(1);
    return -t.leafValue.length;
  };
  if (leaves === 1) {
    newLeaf();
    return t;
  }
  const open: { node: number; side: "left" | "right" }[] = [];
  const addNode = () => {
    const j = t.left.length;
    const f = Math.floor(rng.next() * F);
    t.splitFeature.push(f);
    t.isCategorical.push(cat[f] ? 1 : 0);
    t.threshold.push(cat[f] ? 0 : pick(rng, thresholds[f]));
    const set = new Set<number>();
    if (cat[f]) for (let c = 0; c <= maxCode[f]; c++) if (rng.next() < 0.3) set.add(c);
    t.leftCategories.push([...set]);
    t.defaultLeft.push(rng.next() < 0.5 ? 1 : 0);
    t.left.push(0);
    t.right.push(0);
    t.internalCover.push(1);
    t.gain.push(1);
    open.push({ node: j, side: "left" }, { node: j, side: "right" });
    return j;
  };
  addNode();
  while (t.left.length < leaves - 1) {
    const slot = open.splice(Math.floor(rng.next() * open.length), 1)[0];
    t[slot.side][slot.node] = addNode();
  }
  for (const slot of open) t[slot.side][slot.node] = newLeaf();
  return t;
}

function randomModel(seed: number, objective: Objective, opts: { F?: number; rounds?: number; maxCode?: number; maxLeaves?: number } = {}) {
  const rng = new Rng(seed);
  const F = opts.F ?? 6;
  const K = objective === "multiclass" ? 3 : 1;
  const cat = Array.from({ length: F }, (_, f) => f % 3 === 1);
  const maxCode = Array.from({ length: F }, (_, f) => (f % 2 ? (opts.maxCode ?? 70) : 5));
  // float32 thresholds, plus a few doubles between float32 values and extreme ones
  const thresholds = Array.from({ length: F }, () => [
    ...Array.from({ length: 12 }, () => f32((rng.next() - 0.3) * 4)),
    0.1,
    -1e-50,
    1e-50,
    0,
    -0,
    3.4028234663852886e38,
    1e39,
    -1e39,
    Number.NaN,
  ]);
  const trees: Tree[] = [];
  for (let r = 0; r < (opts.rounds ?? 30); r++)
    for (let k = 0; k < K; k++) trees.push(randomTree(rng, F, cat, maxCode, thresholds, r % 5 === 4 ? 1 : (opts.maxLeaves ?? 31)));
  const model: GbdtModel = {
    format: "gbdt-v1",
    objective,
    numOutputs: K,
    baseScore: Array.from({ length: K }, () => rng.next() - 0.5),
    trees,
    numFeatures: F,
    featureNames: Array.from({ length: F }, (_, f) => `f${f}`),
    bestIteration: (opts.rounds ?? 30) - 1,
  };
  return { model, rng, cat, maxCode, thresholds };
}

/** Rows mixing in-range values, exact thresholds and their float32 neighbours, codes, NaN, -0, ±Infinity, junk. */
function randomData(m: ReturnType<typeof randomModel>, n: number): Float32Array {
  const { model, rng, cat, maxCode, thresholds } = m;
  const F = model.numFeatures;
  const special = [Number.NaN, -0, 0, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -1, 0.5, 1e30, 2 ** 31, 1e-45, -1e-45];
  const data = new Float32Array(n * F);
  for (let i = 0; i < n * F; i++) {
    const f = i % F;
    const u = rng.next();
    if (u < 0.12) data[i] = pick(rng, special);
    else if (cat[f]) data[i] = Math.floor(rng.next() * (maxCode[f] + 8));
    else if (u < 0.5) {
      const t = f32(pick(rng, thresholds[f]));
      data[i] = t;
      if (u < 0.3) data[i] = f32(t + (rng.next() < 0.5 ? -1 : 1) * Math.abs(t) * 2 ** -23); // next float32
    } else data[i] = (rng.next() - 0.3) * 4;
  }
  return data;
}

function expectIdentical(actual: Float64Array, expected: Float64Array) {
  expect(actual.length).toBe(expected.length);
  const diff: number[] = [];
  for (let i = 0; i < actual.length; i++) if (!Object.is(actual[i], expected[i])) diff.push(i);
  expect(diff.slice(0, 5).map((i) => [i, actual[i], expected[i]])).toEqual([]);
}

describe("compiled blocked predict = plain traversal, bit for bit", () => {
  for (const objective of ["regression", "binary", "multiclass"] as const) {
    it(`${objective}: random models with numeric, categorical, NaN and single-leaf trees`, () => {
      for (const seed of [1, 2, 3]) {
        const m = randomModel(seed * 10 + objective.length, objective);
        for (const n of [0, 1, 3, 4, 5, 17, 255, 256, 257, 1001]) {
          const data = randomData(m, n);
          const ref = referenceRaw(m.model, data, n);
          expectIdentical(predictRaw(m.model, data, n), ref);
          expectIdentical(predict(m.model, data, n), transformScores(objective, ref.slice(), m.model.numOutputs));
        }
      }
    });
  }

  it("many features (small blocks) and few features (large blocks), codes past several 30-code words", () => {
    for (const F of [1, 2, 40, 130]) {
      const m = randomModel(100 + F, "regression", { F, rounds: 8, maxCode: 200 });
      const data = randomData(m, 700);
      expectIdentical(predictRaw(m.model, data, 700), referenceRaw(m.model, data, 700));
    }
  });

  it("small trees (every leaf-table size, ./leaf-table) and models under and over the tree count that looks for equal rows", () => {
    for (const rounds of [3, 40]) {
      const m = randomModel(20 + rounds, "multiclass", { rounds, maxLeaves: 10 });
      const data = randomData(m, 777);
      expectIdentical(predictRaw(m.model, data, 777), referenceRaw(m.model, data, 777));
    }
  });

  it("mid-size trees of one and of two mask words (./leaf-masks), numeric and narrow categorical splits, under and over the distinct-row tree count", () => {
    for (const [rounds, maxLeaves] of [
      [4, 32],
      [30, 32],
      [30, 64],
    ]) {
      const m = randomModel(40 + maxLeaves + rounds, "multiclass", { rounds, maxLeaves, maxCode: 20 });
      const masks = flatten(m.model)!.masks;
      const masked = m.model.trees.filter((_, t) => masks.start[t] >= 0);
      expect(masked.length).toBeGreaterThan(rounds); // most trees of 9 or more splits
      expect(masked.some((t) => t.leafValue.length > 32)).toBe(maxLeaves > 32);
      const data = randomData(m, 1000);
      expectIdentical(predictRaw(m.model, data, 1000), referenceRaw(m.model, data, 1000));
    }
  });

  it("trees with multi-word categorical splits (record chains) are walked, not masked", () => {
    const m = randomModel(51, "regression", { F: 3, rounds: 20, maxLeaves: 32, maxCode: 90 });
    const masks = flatten(m.model)!.masks;
    const chained = m.model.trees.map((t, ti) => ({ t, ti })).filter(({ t }) => t.leftCategories.some((c) => c.some((code) => code >= 30)));
    expect(chained.length).toBeGreaterThan(0);
    for (const { ti } of chained) expect(masks.start[ti]).toBe(-1);
    const data = randomData(m, 600);
    expectIdentical(predictRaw(m.model, data, 600), referenceRaw(m.model, data, 600));
  });

  it("deep trees (up to 200 leaves, walked in lockstep after the rows are sorted by key columns, ./row-order)", () => {
    for (const objective of ["regression", "multiclass"] as const) {
      const m = randomModel(31, objective, { F: 5, rounds: 20, maxLeaves: 200 });
      const data = randomData(m, 2000);
      expectIdentical(predictRaw(m.model, data, 2000), referenceRaw(m.model, data, 2000));
    }
  });

  it("repeated rows and rows with equal keys but different values, across more than one chunk of rows", () => {
    const m = randomModel(9, "binary", { F: 4, rounds: 20 });
    const F = m.model.numFeatures;
    const base = randomData(m, 500);
    const n = 70_000;
    const data = new Float32Array(n * F);
    for (let i = 0; i < n; i++) {
      data.set(base.subarray((i % 500) * F, (i % 500) * F + F), i * F);
      // a nudge that keeps most values between the same two thresholds
      if (i % 3 === 1) data[i * F] = f32(data[i * F] * (1 + 1e-6));
    }
    expectIdentical(predictRaw(m.model, data, n), referenceRaw(m.model, data, n));
  });

  it("a prefix of the trees (numTrees), and a matrix longer than numRows", () => {
    const m = randomModel(7, "multiclass");
    const data = randomData(m, 300);
    for (const T of [0, 1, 2, 3, 10, 45, 10_000]) expectIdentical(predictRaw(m.model, data, 300, T), referenceRaw(m.model, data, 300, T));
    expectIdentical(predictRaw(m.model, data, 123), referenceRaw(m.model, data, 123));
  });

  it("a subarray with a byte offset, and repeated calls on the cached compiled model", () => {
    const m = randomModel(8, "binary");
    const data = randomData(m, 400);
    const F = m.model.numFeatures;
    const sub = data.subarray(37 * F);
    const ref = referenceRaw(m.model, sub, 363);
    expectIdentical(predictRaw(m.model, sub, 363), ref);
    expectIdentical(predictRaw(m.model, sub, 363), ref);
  });

  it("a model too wide to compile (a huge category code) falls back to the plain walk", () => {
    const m = randomModel(11, "binary", { F: 3, rounds: 4 });
    const t = m.model.trees.find((tr) => tr.isCategorical.includes(1))!;
    t.leftCategories[t.isCategorical.indexOf(1)].push(2_100_000); // 70,000 key words > 65,536
    const data = randomData(m, 50);
    data[1] = 2_100_000;
    data[4] = 2_100_000;
    expectIdentical(predictRaw(m.model, data, 50), referenceRaw(m.model, data, 50));
  });

  it("a model of single-leaf trees only, with no features", () => {
    const leaf = (v: number): Tree => ({ ...emptyTree(), leafValue: [v], leafCover: [1] });
    const model: GbdtModel = {
      format: "gbdt-v1",
      objective: "regression",
      numOutputs: 1,
      baseScore: [0.1],
      trees: [leaf(0.2), leaf(-0.3), leaf(1e-17)],
      numFeatures: 0,
      featureNames: [],
      bestIteration: 2,
    };
    expectIdentical(predictRaw(model, new Float32Array(0), 5), referenceRaw(model, new Float32Array(0), 5));
    expect(predictRaw(model, new Float32Array(0), 0).length).toBe(0);
  });

  it("trained models with categorical features and missing values", () => {
    const rng = new Rng(5);
    const n = 3000;
    const F = 4;
    const data = new Float32Array(n * F);
    const label = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const code = Math.floor(rng.next() * 45); // > 30 levels: multi-word categorical splits
      const x = rng.next() < 0.1 ? Number.NaN : rng.next() * 2 - 1;
      data.set([code, x, rng.next(), Math.floor(rng.next() * 4)], i * F);
      label[i] = ((code * 7) % 5) + (Number.isNaN(x) ? 2 : x) + (data[i * F + 3] === 2 ? 1 : 0) + rng.next() * 0.1;
    }
    const trainRows = Int32Array.from({ length: 2000 }, (_, i) => i);
    const categorical = [1, 0, 0, 1];
    for (const objective of ["regression", "multiclass"] as const) {
      const y = objective === "regression" ? label : label.map((v) => Math.min(2, Math.max(0, Math.floor(v / 3))));
      const { model } = trainGbdt({
        data,
        numRows: n,
        numFeatures: F,
        categorical,
        label: y,
        trainRows,
        params: { objective, numClasses: 3, maxRounds: 40 },
      });
      expect(model.trees.some((t) => t.isCategorical.some((c) => c === 1))).toBe(true);
      expectIdentical(predictRaw(model, data, n), referenceRaw(model, data, n));
    }
  });
});

describe("int32 keys", () => {
  it("order float32 values like <= does, with -0 = +0, for thresholds that are not float32 too", () => {
    const rng = new Rng(9);
    const bits = new Int32Array(1);
    const f = new Float32Array(bits.buffer);
    const key = (x: number) => {
      f[0] = x;
      return orderKey(bits[0]);
    };
    const values = [
      0,
      -0,
      1e-45,
      -1e-45,
      1,
      -1,
      3.4028234663852886e38,
      -3.4028234663852886e38,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
    ].map(f32);
    for (let i = 0; i < 300; i++) values.push(f32((rng.next() - 0.5) * 10 ** (rng.next() * 10 - 5)));
    const thresholds = [...values, 0.1, -0.1, 1e-50, -1e-50, 1e39, -1e39, Math.PI];
    for (const x of values) for (const t of thresholds) expect([x, t, key(x) <= thresholdKey(t)]).toEqual([x, t, x <= t]);
  });
});
