/**
 * Trained benchmark models: the exported ONNX model run in onnxruntime-web must match the
 * engine's own prediction (max abs difference <= 1e-5), and TreeSHAP must add up to the raw
 * score. Also prints (does not assert) the warm one-row ORT latency and the TreeSHAP time for
 * 500 rows of a 100-round model:
 *   npx vitest run --project node test/ml/onnx-trained.test.ts
 */
import { describe, expect, it } from "vitest";
import { TreeShapExplainer } from "../../src/ml/explain/treeshap";
import { applyFeaturizer, buildFeaturizer, featureKinds } from "../../src/ml/featurize";
import type { GbdtModel } from "../../src/ml/gbdt/model";
import { predict, predictRaw } from "../../src/ml/gbdt/predict";
import { trainGbdt } from "../../src/ml/gbdt/train";
import { exportGbdtToOnnx } from "../../src/ml/onnx/export";
import { loadBenchDataset } from "./helpers/bench-data";
import { featureNames } from "./helpers/feature-names";
import { createSession, runFeatures, toNumbers } from "./helpers/ort-node";

const TRAIN_ROWS = 8000;
const TEST_ROWS = 2000;

interface Trained {
  model: GbdtModel;
  test: Float32Array; // row-major test rows
  numTest: number;
}

function trainOn(name: string, rounds: number): Trained {
  const ds = loadBenchDataset(name);
  const spec = buildFeaturizer(ds.frame, { labelColumn: ds.target });
  const X = applyFeaturizer(spec, ds.frame);
  const target = ds.frame.columns.find((c) => c.name === ds.target)!;
  const classes = target.storage === "dictionary" ? target.dictionary : undefined;
  const label = Float64Array.from(target.storage === "dictionary" ? target.codes : target.values);
  const objective = ds.task === "regression" ? "regression" : classes!.length > 2 ? "multiclass" : "binary";
  const { model } = trainGbdt({
    data: X.data,
    numRows: X.numRows,
    numFeatures: X.numFeatures,
    categorical: featureKinds(spec).map((k) => k.type === "categorical"),
    featureNames: featureNames(spec),
    label,
    classes,
    trainRows: ds.folds.train.subarray(0, TRAIN_ROWS),
    params: { objective, numClasses: classes?.length ?? 2, maxRounds: rounds, earlyStoppingRounds: 0, seed: 0 },
  });
  const F = X.numFeatures;
  const rows = ds.folds.test.subarray(0, TEST_ROWS);
  const test = new Float32Array(rows.length * F);
  rows.forEach((r, i) => test.set(X.data.subarray(r * F, (r + 1) * F), i * F));
  return { model, test, numTest: rows.length };
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

function checkShapAdditivity({ model, test, numTest }: Trained, rows: number): number {
  const F = model.numFeatures;
  const K = model.numOutputs;
  const raw = predictRaw(model, test, numTest);
  const explainer = new TreeShapExplainer(model);
  const phi = new Float64Array(K * F);
  let worst = 0;
  for (let i = 0; i < rows; i++) {
    phi.fill(0);
    explainer.explainInto(test.subarray(i * F, (i + 1) * F), phi);
    for (let k = 0; k < K; k++) {
      let s = explainer.expectedValue[k];
      for (let f = 0; f < F; f++) s += phi[k * F + f];
      worst = Math.max(worst, Math.abs(s - raw[i * K + k]));
    }
  }
  return worst;
}

describe("trained benchmark models", () => {
  for (const name of ["diamonds", "cps1988", "fertility", "shuttle", "lending_club"]) {
    it(`${name}: onnxruntime-web matches the engine, TreeSHAP adds up`, async () => {
      const trained = trainOn(name, 20);
      const { model, test, numTest } = trained;
      const session = await createSession(exportGbdtToOnnx(model));
      const out = await runFeatures(session, test, numTest, model.numFeatures);
      const engine = predict(model, test, numTest);
      let diff: number;
      if (model.objective === "regression") diff = maxAbsDiff(toNumbers(out.prediction), engine);
      else {
        const probs = toNumbers(out.probabilities);
        // Engine: binary gives P(classes[1]) per row, multiclass the full row-major matrix.
        const onnx = model.objective === "binary" ? probs.filter((_, j) => j % 2 === 1) : probs;
        diff = Math.max(maxAbsDiff(onnx, engine), maxAbsDiff(toNumbers(out.raw_score), predictRaw(model, test, numTest)));
      }
      const shapErr = checkShapAdditivity(trained, 200);
      console.log(
        `${name}: ${model.trees.length} trees, max |onnx - engine| = ${diff.toExponential(2)}, max |bias + sum(shap) - raw| = ${shapErr.toExponential(2)}`,
      );
      expect(diff).toBeLessThanOrEqual(1e-5);
      expect(shapErr).toBeLessThanOrEqual(1e-6);
    });
  }

  it("measures warm one-row ORT latency and TreeSHAP on 500 rows (100 rounds x 31 leaves)", async () => {
    const trained = trainOn("diamonds", 100);
    const { model, test } = trained;
    const F = model.numFeatures;

    const session = await createSession(exportGbdtToOnnx(model));
    const one = test.slice(0, F);
    for (let i = 0; i < 200; i++) await runFeatures(session, one, 1, F); // warm-up
    const runs = 2000;
    const times = new Float64Array(runs);
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await runFeatures(session, one, 1, F);
      times[i] = performance.now() - t0;
    }
    times.sort();
    const mean = times.reduce((a, b) => a + b, 0) / runs;

    const explainer = new TreeShapExplainer(model);
    const phi = new Float64Array(F);
    // Wall and CPU time per pass: the machine is shared, CPU time is the steadier figure.
    const shapTimes: number[] = [];
    const shapCpu: number[] = [];
    for (let rep = 0; rep < 5; rep++) {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      for (let i = 0; i < 500; i++) explainer.explainInto(test.subarray(i * F, (i + 1) * F), phi);
      shapTimes.push(performance.now() - t0);
      shapCpu.push(process.cpuUsage(c0).user / 1000);
    }
    const leaves = model.trees.reduce((s, t) => s + t.leafValue.length, 0) / model.trees.length;
    console.log(
      `ORT one-row warm latency (${model.trees.length} trees): median ${times[runs >> 1].toFixed(4)} ms, ` +
        `p90 ${times[Math.floor(runs * 0.9)].toFixed(4)} ms, mean ${mean.toFixed(4)} ms; ` +
        `TreeSHAP 500 rows (${model.trees.length} trees, ${leaves.toFixed(1)} leaves avg): wall ${shapTimes.map((t) => t.toFixed(0)).join(", ")} ms, ` +
        `cpu ${shapCpu.map((t) => t.toFixed(0)).join(", ")} ms`,
    );
    expect(checkShapAdditivity(trained, 500)).toBeLessThanOrEqual(1e-6);
  });
});
