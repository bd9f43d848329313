/**
 * onnxruntime-web inside workerd: a model trained by the engine and exported to ONNX gives the
 * engine's own predictions when run through src/inference (binary, multiclass, regression).
 */
import { describe, expect, it } from "vitest";
import { createOrtSession, ortRuntimeStatus } from "../../src/inference/ort-runtime";
import { applyFeaturizer } from "../../src/ml/featurize";
import type { Column, Frame } from "../../src/ml/frame";
import { exportGbdtToOnnx } from "../../src/ml/onnx/export";
import type { PredictionModelResult } from "../../src/ml/prediction/model";
import { trainPredictionModel } from "../../src/ml/prediction/train";
import { Rng } from "../../src/ml/random";
import { predictFrame } from "../ml/helpers/engine-scores";
import { runGbdtOnnx } from "./run-onnx";

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

/** x numeric (some missing), c categorical; the label is a function of both. */
function frame(n: number, seed: number, label: (x: number, c: string, noise: number) => string | number): Frame {
  const rng = new Rng(seed);
  const x = Array.from({ length: n }, (_, i) => (i % 17 === 0 ? NaN : rng.next() * 10));
  const c = Array.from({ length: n }, () => ["p", "q", "r", "s"][rng.int(4)]);
  const y = x.map((v, i) => label(Number.isNaN(v) ? 5 : v, c[i], rng.next()));
  const labelColumn = typeof y[0] === "number" ? num("y", y as number[]) : dict("y", y as string[]);
  return { rowCount: n, columns: [num("x", x), dict("c", c), labelColumn] };
}

async function onnxVersusEngine(trained: PredictionModelResult, test: Frame) {
  const session = await createOrtSession(exportGbdtToOnnx(trained.model));
  const m = applyFeaturizer(trained.featurizer, test);
  const onnx = await runGbdtOnnx(session, m.data, m.numRows, m.numFeatures);
  const engine = predictFrame(trained.model, trained.featurizer, test);
  return { onnx, engine };
}

const train = (f: Frame) => trainPredictionModel(f, { labelColumn: "y", params: { max_rounds: 30, seed: 1 } });

describe("GBDT ONNX in onnxruntime-web (workerd)", () => {
  it("binary: probabilities within 1e-6 and the same labels as the engine", async () => {
    const trained = train(frame(400, 1, (x, c, e) => (x + (c === "q" ? 3 : 0) + 2 * e > 7 ? "yes" : "no")));
    expect(trained.model.objective).toBe("binary");
    const { onnx, engine } = await onnxVersusEngine(
      trained,
      frame(200, 2, () => "no"),
    );
    expect(onnx.prediction).toBeNull();
    expect(onnx.probabilities!.length).toBe(200 * 2);
    expectClose(onnx.probabilities!, engine.probabilities!, 1e-6);
    expect(Array.from(onnx.labelIndex!, (k) => trained.classes![k])).toEqual(engine.predictions);
  });

  it("binary on a category of 300 levels (its rarer ones in a further feature, mostly missing): within 1e-6 of the engine", async () => {
    // levels by frequency: 254 of 130 rows, then 46 of 110 (kept in `g.rare1`); the label rides on the rare ones
    const wide = (seed: number): Frame => {
      const rng = new Rng(seed);
      const levels = Int32Array.from(Array.from({ length: 300 }, (_, l) => Array<number>(l < 254 ? 130 : 110).fill(l)).flat());
      rng.shuffle(levels);
      const y = Array.from(levels, (l) => ((l >= 254 && l % 2 === 0) !== rng.next() < 0.1 ? "yes" : "no"));
      return {
        rowCount: levels.length,
        columns: [
          dict(
            "g",
            Array.from(levels, (l) => `g${l}`),
          ),
          dict("y", y),
        ],
      };
    };
    const trained = train(wide(3));
    expect(trained.featurizer.features.map((f) => f.name)).toEqual(["g", "g.rare1"]);
    const { onnx, engine } = await onnxVersusEngine(trained, wide(4));
    expectClose(onnx.probabilities!, engine.probabilities!, 1e-6);
    expect(Array.from(onnx.labelIndex!, (k) => trained.classes![k])).toEqual(engine.predictions);
  });

  it("multiclass: probabilities within 1e-6 and the same labels as the engine", async () => {
    const trained = train(frame(600, 3, (x, c, e) => (c === "s" ? "d" : x + 2 * e < 4 ? "a" : x + 2 * e < 8 ? "b" : "c")));
    expect(trained.model.objective).toBe("multiclass");
    expect(trained.classes!.length).toBe(4);
    const { onnx, engine } = await onnxVersusEngine(
      trained,
      frame(200, 4, () => "a"),
    );
    expect(onnx.probabilities!.length).toBe(200 * 4);
    expectClose(onnx.probabilities!, engine.probabilities!, 1e-6);
    expect(Array.from(onnx.labelIndex!, (k) => trained.classes![k])).toEqual(engine.predictions);
  });

  it("regression: predictions within 1e-9 relative of the engine", async () => {
    const trained = train(frame(400, 5, (x, c, e) => 1e5 * (x * x + (c === "r" ? 20 : 0) + e)));
    expect(trained.model.objective).toBe("regression");
    const { onnx, engine } = await onnxVersusEngine(
      trained,
      frame(200, 6, () => 0),
    );
    expect(onnx.probabilities).toBeNull();
    expect(onnx.labelIndex).toBeNull();
    const pred = onnx.prediction!;
    expect(pred.length).toBe(200);
    for (let i = 0; i < pred.length; i++) {
      const want = engine.predictions[i] as number;
      expect(Math.abs(pred[i] - want)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(want)));
    }
  });

  it("zero rows give empty arrays", async () => {
    const reg = train(frame(200, 7, (x) => x));
    const cls = train(frame(200, 8, (x) => (x > 5 ? "hi" : "lo")));
    const F = (t: PredictionModelResult) => t.model.numFeatures;
    const r = await runGbdtOnnx(await createOrtSession(exportGbdtToOnnx(reg.model)), new Float32Array(0), 0, F(reg));
    expect(r).toEqual({ prediction: new Float64Array(0), probabilities: null, labelIndex: null });
    const c = await runGbdtOnnx(await createOrtSession(exportGbdtToOnnx(cls.model)), new Float32Array(0), 0, F(cls));
    expect(c).toEqual({ prediction: null, probabilities: new Float32Array(0), labelIndex: new Int32Array(0) });
  });

  it("rejects a matrix whose length does not match its shape", async () => {
    const reg = train(frame(200, 9, (x) => x));
    const session = await createOrtSession(exportGbdtToOnnx(reg.model));
    await expect(runGbdtOnnx(session, new Float32Array(5), 2, reg.model.numFeatures)).rejects.toThrow(/expected 2 x/);
  });

  it("instantiates the precompiled wasm module exactly once per isolate", async () => {
    await createOrtSession(exportGbdtToOnnx(train(frame(100, 10, (x) => x)).model));
    expect(ortRuntimeStatus()).toEqual({ configured: true, precompiledInstantiations: 1 });
  });
});

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tol: number): void {
  expect(actual.length).toBe(expected.length);
  let worst = 0;
  for (let i = 0; i < actual.length; i++) worst = Math.max(worst, Math.abs(actual[i] - expected[i]));
  expect(worst).toBeLessThanOrEqual(tol);
}
