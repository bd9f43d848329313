/**
 * Our side of the benchmark: train on the fixed folds, score on test, time prediction with the
 * engine's own predict and with onnxruntime-web (warm, one thread).
 */
import type { Frame } from "../../src/ml/frame";
import type { BenchSpec } from "./datasets";
import { takeRows } from "./datasets";
import { bestOf, classScores, medianCall, r2 } from "./measure";

export interface OursResult {
  fitS: number; fitPasses: number; rounds: number; trainRows: number; valRows: number; testRows: number;
  r2?: number; accuracy?: number; auc?: number; logloss?: number;
  featurizeAllS: number;
  engine: { p1: number; p1000: number; pAll: number };
  ort?: { p1: number; p1000: number; pAll: number; maxDiff: number };
}

// Imported at run time so that the Python side runs while the engine is still being written.
const load = (p: string) => import(p);

export async function runOurs(spec: BenchSpec, frame: Frame, folds: { train: Int32Array; val: Int32Array; test: Int32Array },
  opt: { repeats: number; oneRowCalls: number; fitBudgetS: number }): Promise<OursResult> {
  const { trainPredictionModel } = await load("../../src/ml/prediction");
  const { applyFeaturizer } = await load("../../src/ml/featurize");
  const { predict } = await load("../../src/ml/gbdt");

  const fitFrame = takeRows(frame, Int32Array.from([...folds.train, ...folds.val]));
  const nt = folds.train.length;
  const split = { train: Int32Array.from({ length: nt }, (_, i) => i), val: Int32Array.from(folds.val, (_, i) => nt + i) };
  const testFrame = takeRows(frame, folds.test);

  const fit = await bestOf(opt.repeats, () => trainPredictionModel(fitFrame, { labelColumn: spec.target, task: spec.task, split }), opt.fitBudgetS);
  const { model, featurizer } = fit.value as { model: any; featurizer: any };
  const feat = await bestOf(opt.repeats, () => applyFeaturizer(featurizer, testFrame));
  const { data, numRows, numFeatures } = feat.value as { data: Float32Array; numRows: number; numFeatures: number };

  const run = (n: number) => predict(model, data.subarray(0, n * numFeatures), n);
  const allPred = await bestOf(opt.repeats, () => run(numRows));
  const engine = {
    p1: await medianCall(() => run(1), opt.oneRowCalls),
    p1000: (await bestOf(Math.max(opt.repeats, 5), () => run(1000))).seconds,
    pAll: allPred.seconds,
  };
  const out = flatten(allPred.value, numRows);
  const res: OursResult = {
    fitS: fit.seconds, fitPasses: fit.passes, rounds: model.bestIteration + 1, trainRows: nt, valRows: folds.val.length,
    testRows: numRows, featurizeAllS: feat.seconds, engine, ...score(spec, model, testFrame, out),
  };
  res.ort = await timeOrt(model, data, numRows, numFeatures, out, opt);
  return res;
}

/** Engine predictions as one row-major array (values, or n × k probabilities). */
function flatten(p: unknown, n: number): Float64Array {
  if (Array.isArray(p) && ArrayBuffer.isView(p[0])) { // one array per class
    const k = p.length, out = new Float64Array(n * k);
    p.forEach((col: Float64Array, c) => col.forEach((v, i) => (out[i * k + c] = v)));
    return out;
  }
  return Float64Array.from(p as ArrayLike<number>);
}

function score(spec: BenchSpec, model: any, testFrame: Frame, out: Float64Array) {
  const col = testFrame.columns.find((c) => c.name === spec.target)!;
  if (spec.task === "regression") {
    if (col.storage !== "numeric") throw new Error("regression target must be numeric");
    return { r2: r2(col.values, out) };
  }
  const classes: string[] = model.classes;
  const index = new Map(classes.map((c, i) => [c, i]));
  const y = Int32Array.from({ length: testFrame.rowCount }, (_, i) =>
    index.get(col.storage === "dictionary" ? col.dictionary[col.codes[i]] : String(col.values[i])) ?? -1);
  const k = spec.task === "binary" ? 2 : classes.length;
  const probs = out.length === y.length && k === 2 ? Float64Array.from({ length: 2 * y.length }, (_, j) => (j % 2 ? out[j >> 1] : 1 - out[j >> 1])) : out;
  return classScores(y, probs, k);
}

async function timeOrt(model: any, data: Float32Array, numRows: number, numFeatures: number, engineOut: Float64Array,
  opt: { repeats: number; oneRowCalls: number }): Promise<OursResult["ort"]> {
  const { exportGbdtToOnnx } = await load("../../src/ml/onnx/export");
  const { createSession } = await load("../../test/ml/helpers/ort-node");
  const ort = await import("onnxruntime-web");
  const session = await createSession(exportGbdtToOnnx(model));
  const output = model.objective === "regression" ? "prediction" : "probabilities";
  const run = async (n: number) => {
    const input = new ort.Tensor("float32", data.subarray(0, n * numFeatures), [n, numFeatures]);
    return (await session.run({ features: input }, [output]))[output].data as Float32Array | Float64Array;
  };
  const all = await bestOf(opt.repeats, () => run(numRows));
  const ortOut = all.value;
  const k = ortOut.length / numRows;
  let maxDiff = 0; // ORT vs engine, on the probability of the last class (or the value)
  for (let i = 0; i < numRows; i++) {
    const e = engineOut.length === numRows ? engineOut[i] : engineOut[i * k + k - 1];
    maxDiff = Math.max(maxDiff, Math.abs(ortOut[i * k + k - 1] - e));
  }
  return {
    p1: await medianCall(() => run(1), opt.oneRowCalls),
    p1000: (await bestOf(Math.max(opt.repeats, 5), () => run(1000))).seconds,
    pAll: all.seconds, maxDiff,
  };
}
