import * as ort from "onnxruntime-web";
import { DATASETS, datasetFiles, takeRows } from "../../bench/ml/datasets";
import { classScores, medianCall, r2 } from "../../bench/ml/measure";
import { applyFeaturizer } from "../../src/ml/featurize";
import { predict } from "../../src/ml/gbdt";
import { exportGbdtToOnnx } from "../../src/ml/onnx/export";
import { trainPredictionModel } from "../../src/ml/prediction/train";
import { buildRepresentation } from "../../src/ml/representation/representation";
import { loadBenchDataset } from "../../test/ml/helpers/bench-data";
import { createSession } from "../../test/ml/helpers/ort-node";

const name = process.argv[2];
const spec = DATASETS.find((d) => d.name === name)!;
const { frame, folds } = loadBenchDataset(spec.name, datasetFiles(spec.name).csv);
const fitFrame = takeRows(frame, Int32Array.from([...folds.train, ...folds.val]));
const nt = folds.train.length;
const split = { train: Int32Array.from({ length: nt }, (_, i) => i), val: Int32Array.from(folds.val, (_, i) => nt + i) };
const testFrame = takeRows(frame, folds.test);
const task = spec.task === "regression" ? "regression" : "classification";
const representation = buildRepresentation(fitFrame);
for (const search of (process.argv[3] ?? "off,auto").split(",")) {
  const t = performance.now();
  const res = trainPredictionModel(fitFrame, {
    labelColumn: spec.target,
    task,
    // the search as a user gets it: the whole table, no split (its own folds or holdout)
    split: search === "auto" ? undefined : split,
    representation,
    params: { search: search as "off", time_budget_s: Number(process.argv[4] ?? 300) },
  });
  const s = (performance.now() - t) / 1000;
  const X = applyFeaturizer(res.featurizer, testFrame);
  const pred = predict(res.model, X.data, X.numRows);
  const col = testFrame.columns.find((c) => c.name === spec.target)!;
  let score: string;
  if (task === "regression") score = `r2 ${r2((col as any).values, pred).toFixed(4)}`;
  else {
    const c: any = col;
    const idx = new Map(res.classes!.map((c, i) => [c, i]));
    const y = Int32Array.from(
      { length: testFrame.rowCount },
      (_, i) => idx.get(c.storage === "dictionary" ? c.dictionary[c.codes[i]] : String(c.values[i])) ?? -1,
    );
    const k = res.classes!.length;
    const probs =
      pred.length === y.length && k === 2 ? Float64Array.from({ length: 2 * y.length }, (_, j) => (j % 2 ? pred[j >> 1] : 1 - pred[j >> 1])) : pred;
    const cs = classScores(y, probs, k);
    score = JSON.stringify(cs);
  }
  const session = await createSession(exportGbdtToOnnx(res.model));
  const out = res.model.objective === "regression" ? "prediction" : "probabilities";
  const one = () => session.run({ features: new ort.Tensor("float32", X.data.subarray(0, X.numFeatures), [1, X.numFeatures]) }, [out]);
  await one();
  const p1 = await medianCall(one, 300);
  console.log(`onnx one-row median ${(p1 * 1000).toFixed(3)} ms`);
  const srch = res.search;
  console.log(
    name,
    search,
    res.validation.method,
    `${s.toFixed(1)}s`,
    score,
    "trees",
    res.model.trees.length,
    srch ? `trials ${srch.trials.length} ${srch.stopReason} best ${srch.best} ens ${JSON.stringify(srch.ensemble?.members)}` : "",
  );
  if (srch)
    for (const t of srch.trials)
      console.log("  ", t.trial, t.status, t.loss.toFixed(5), t.folds, t.rounds, t.seconds.toFixed(2), JSON.stringify(t.params));
}
