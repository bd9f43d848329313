/**
 * Grouping rows the exported graph answers alike (src/ml/gbdt/alike-rows.ts) and running the graph
 * once per group (src/inference/alike-rows.ts): in onnxruntime's run over every row, each row's
 * outputs are bit for bit (Object.is) those of its group's first row, and the run over the groups'
 * first rows alone gives those rows' outputs bit for bit, for each objective, on trained models
 * with numeric, categorical and NaN splits; models whose graph decides a split otherwise than the
 * keys are not grouped.
 */
import { describe, expect, it } from "vitest";
import { createNodeSession } from "../../src/container/node-ort";
import { groupRows } from "../../src/inference/alike-rows";
import { runGraph } from "../../src/inference/run-graph";
import { alikeRows } from "../../src/ml/gbdt/alike-rows";
import type { GbdtModel, Objective } from "../../src/ml/gbdt/model";
import { trainGbdt } from "../../src/ml/gbdt/train";
import { exportGbdtToOnnx } from "../../src/ml/onnx/export";
import { Rng } from "../../src/ml/random";

const F = 4;

/**
 * Rows of 4 features: a numeric one with few values (many rows alike), a fine numeric one, a
 * categorical code (some NaN), a numeric one with NaN; the label follows all four.
 */
function table(n: number, seed: number, objective: Objective) {
  const rng = new Rng(seed);
  const data = new Float32Array(n * F);
  const label = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const coarse = Math.floor(rng.next() * 6);
    const fine = rng.next() * 100;
    const code = rng.next() < 0.1 ? Number.NaN : Math.floor(rng.next() * 40);
    const gappy = rng.next() < 0.2 ? Number.NaN : Math.round(rng.next() * 20) / 4;
    data.set([coarse, fine, code, gappy], i * F);
    const score = coarse + (Number.isNaN(code) ? 1 : code % 3) + (Number.isNaN(gappy) ? 2 : gappy / 2) + fine / 50 + rng.next();
    label[i] = objective === "regression" ? score * 1000 : objective === "binary" ? +(score > 6) : Math.min(2, Math.floor(score / 4));
  }
  return { data, label };
}

function trained(objective: Objective): GbdtModel {
  const n = 3000;
  const { data, label } = table(n, 7, objective);
  const classes = objective === "multiclass" ? ["a", "b", "c"] : objective === "binary" ? ["no", "yes"] : undefined;
  const params = { objective, numClasses: classes?.length ?? 2, maxRounds: 60, earlyStoppingRounds: 0, seed: 0 };
  return trainGbdt({ data, numRows: n, numFeatures: F, categorical: [false, false, true, false], label, classes, params }).model;
}

/** Rows to answer: new rows, with coarse features so that many are alike. */
function queryRows(n: number): Float32Array {
  const { data } = table(n, 11, "regression");
  for (let i = 0; i < n; i++) {
    data[i * F + 1] = Math.round(data[i * F + 1] / 25) * 25;
    data[i * F + 2] %= 4;
    data[i * F + 3] = Math.round(data[i * F + 3]);
  }
  return data;
}

describe("rows answered alike", () => {
  for (const objective of ["regression", "binary", "multiclass"] as const) {
    it(`gives a ${objective} model's every output bit for bit`, async () => {
      const model = trained(objective);
      const session = await createNodeSession(exportGbdtToOnnx(model));
      const n = 5000;
      const data = queryRows(n);
      expect(model.trees.every((t) => t.leafValue.every(Number.isFinite))).toBe(true);
      const groups = alikeRows(model, data, n);
      expect(groups).not.toBeNull();
      expect(groups!.count).toBeLessThan(n / 2);
      const whole = await runGraph(session, data, n, F, { chunked: false });
      const firsts = await runGraph(session, groupRows(data, F, groups!), groups!.count, F, { chunked: false });
      expect(Object.keys(firsts)).toEqual(Object.keys(whole));
      for (const [name, out] of Object.entries(whole)) {
        const width = out.data.length / n;
        const cell = (i: number, j: number) => out.data[i * width + j];
        const unlike = out.data.findIndex((v, k) => !Object.is(v, cell(groups!.first[groups!.of[Math.floor(k / width)]], k % width)));
        expect(unlike, `${name}: value ${unlike} is not its group's`).toBe(-1);
        const moved = firsts[name].data.findIndex((v, k) => !Object.is(v, cell(groups!.first[Math.floor(k / width)], k % width)));
        expect(moved, `${name}: value ${moved} differs run alone`).toBe(-1);
      }
      await session.release();
    });
  }

  it("numbers each row's group and each group's first row", () => {
    const model = trained("binary");
    const data = queryRows(200);
    const rows = new Float32Array([...data.subarray(0, 2 * F), ...data.subarray(0, F)]);
    const groups = alikeRows(model, rows, 3)!;
    expect(Array.from(groups.of)).toEqual([0, groups.count - 1, 0]);
    expect(Array.from(groups.first)).toEqual(groups.count === 2 ? [0, 1] : [0]);
  });

  it("does not group a model with an empty categorical left set", () => {
    const model = structuredClone(trained("binary"));
    const tree = model.trees.find((t) => t.isCategorical.some(Boolean))!;
    tree.leftCategories[tree.isCategorical.indexOf(1)] = [];
    expect(alikeRows(model, queryRows(10), 10)).toBeNull();
  });

  it("does not group a model with a categorical left set holding a non-code", () => {
    const model = structuredClone(trained("binary"));
    const tree = model.trees.find((t) => t.isCategorical.some(Boolean))!;
    tree.leftCategories[tree.isCategorical.indexOf(1)].push(2.5);
    expect(alikeRows(model, queryRows(10), 10)).toBeNull();
  });

  it("does not group a model with a non-finite threshold", () => {
    const model = structuredClone(trained("regression"));
    const tree = model.trees.find((t) => t.isCategorical.some((c) => !c))!;
    tree.threshold[tree.isCategorical.indexOf(0)] = Number.POSITIVE_INFINITY;
    expect(alikeRows(model, queryRows(10), 10)).toBeNull();
  });
});
