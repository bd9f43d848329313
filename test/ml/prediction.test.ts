import { describe, expect, it } from "vitest";
import { MlInputError } from "../../src/ml/errors";
import type { Column, Frame } from "../../src/ml/frame";
import { trainPredictionModel } from "../../src/ml/prediction/train";
import { Rng } from "../../src/ml/random";
import { predictFrame } from "./helpers/engine-scores";

const num = (name: string, values: ArrayLike<number>): Column => ({ name, kind: "numeric", storage: "numeric", values: Float64Array.from(values) });
const dict = (name: string, values: (string | null)[]): Column => {
  const dictionary = [...new Set(values.filter((v): v is string => v !== null))];
  return {
    name,
    kind: "categorical",
    storage: "dictionary",
    dictionary,
    codes: Int32Array.from(values, (v) => (v === null ? -1 : dictionary.indexOf(v))),
  };
};

function classificationFrame(n = 400): Frame {
  const rng = new Rng(11);
  const x = Array.from({ length: n }, () => rng.next());
  const c = Array.from({ length: n }, () => ["p", "q", "r"][rng.int(3)]);
  const label = x.map((v, i) => (v + (c[i] === "q" ? 0.4 : 0) > 0.7 ? "yes" : "no"));
  return { rowCount: n, columns: [num("x", x), dict("c", c), dict("label", label)] };
}

function expectInputError(fn: () => unknown, pattern: RegExp) {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(MlInputError);
  expect((err as Error).message).toMatch(pattern);
}

describe("trainPredictionModel", () => {
  it("trains a classifier with inferred task, stratified validation and metrics", () => {
    const f = classificationFrame();
    const steps: number[] = [];
    const res = trainPredictionModel(f, {
      labelColumn: "label",
      params: { seed: 3, search: "off" },
      onIteration: (it) => void steps.push(it.iteration),
    });
    expect(res.task).toBe("classification");
    expect(res.classes).toEqual(["no", "yes"]);
    expect(res.validation).toMatchObject({ method: "stratified", valRows: 40, trainRows: 360, metricsOn: "validation" });
    expect(res.metrics.accuracy).toBeGreaterThan(0.85);
    expect(res.metrics.roc_auc).not.toBeNull();
    expect(steps.length).toBe(res.history.length);
    const out = predictFrame(res.model, res.featurizer, { rowCount: 2, columns: [num("x", [0.95, 0.05]), dict("c", ["p", "r"])] });
    expect(out.predictions).toEqual(["yes", "no"]);
  });

  it("infers regression and reports r2", () => {
    const rng = new Rng(2);
    const x = Array.from({ length: 300 }, () => rng.next());
    const f: Frame = {
      rowCount: 300,
      columns: [
        num("x", x),
        num(
          "y",
          x.map((v) => 3 * v + 0.01 * rng.next()),
        ),
      ],
    };
    const res = trainPredictionModel(f, { labelColumn: "y" });
    expect(res.task).toBe("regression");
    expect(res.metrics.r2).toBeGreaterThan(0.9);
  });

  it("uses an explicit split and is deterministic for a seed", () => {
    const f = classificationFrame(200);
    const split = { train: Array.from({ length: 150 }, (_, i) => i), val: Array.from({ length: 50 }, (_, i) => 150 + i) };
    const a = trainPredictionModel(f, { labelColumn: "label", split });
    const b = trainPredictionModel(f, { labelColumn: "label", split });
    expect(a.validation.method).toBe("explicit");
    expect(a.model).toEqual(b.model);
  });

  it("rejects a dataset with no rows", () => {
    expectInputError(() => trainPredictionModel({ rowCount: 0, columns: [num("x", []), num("y", [])] }, { labelColumn: "y" }), /no rows/);
  });

  it("rejects a label with one class only", () => {
    const f: Frame = {
      rowCount: 50,
      columns: [
        num(
          "x",
          Array.from({ length: 50 }, (_, i) => i),
        ),
        dict("y", Array(50).fill("a")),
      ],
    };
    expectInputError(() => trainPredictionModel(f, { labelColumn: "y" }), /only one class/);
  });

  it("rejects a label that is all missing, and drops rows with a missing label", () => {
    const x = Array.from({ length: 40 }, (_, i) => i);
    expectInputError(
      () => trainPredictionModel({ rowCount: 40, columns: [num("x", x), num("y", Array(40).fill(NaN))] }, { labelColumn: "y" }),
      /no values/,
    );
    const y = x.map((v) => (v % 4 === 0 ? NaN : v * 2));
    const res = trainPredictionModel({ rowCount: 40, columns: [num("x", x), num("y", y)] }, { labelColumn: "y", task: "regression" });
    expect(res.validation.droppedRows).toBe(10);
  });

  it("rejects data without usable features, naming the reasons", () => {
    const f: Frame = {
      rowCount: 30,
      columns: [
        num("k", Array(30).fill(1)),
        num(
          "y",
          Array.from({ length: 30 }, (_, i) => i % 2),
        ),
      ],
    };
    expectInputError(() => trainPredictionModel(f, { labelColumn: "y" }), /no usable feature columns.*k: constant/);
  });

  it("rejects a label with thousands of classes, naming the count and the limit", () => {
    const n = 3000;
    const f: Frame = {
      rowCount: n,
      columns: [
        num(
          "x",
          Array.from({ length: n }, (_, i) => i % 7),
        ),
        dict(
          "y",
          Array.from({ length: n }, (_, i) => `c${i % 2500}`),
        ),
      ],
    };
    expectInputError(() => trainPredictionModel(f, { labelColumn: "y" }), /2500 distinct classes.*limit.*100/);
  });

  it("rejects infinities in the label; clamps them in features", () => {
    const x = Array.from({ length: 60 }, (_, i) => (i % 10 === 0 ? Infinity : i % 10 === 5 ? -Infinity : i));
    const y = x.map((_, i) => i);
    const ok = trainPredictionModel({ rowCount: 60, columns: [num("x", x), num("y", y)] }, { labelColumn: "y" });
    expect(Object.values(ok.metrics).every((v) => v === null || Number.isFinite(v))).toBe(true);
    const badY = y.map((v) => (v === 3 ? Infinity : v));
    expectInputError(() => trainPredictionModel({ rowCount: 60, columns: [num("x", y), num("y", badY)] }, { labelColumn: "y" }), /infinite/);
  });

  it("rejects an unknown label column and invalid params", () => {
    const f = classificationFrame(50);
    expectInputError(() => trainPredictionModel(f, { labelColumn: "nope" }), /not found/);
    expectInputError(() => trainPredictionModel(f, { labelColumn: "label", params: { learning_rate: -1 } }), /learning_rate/);
  });
});
