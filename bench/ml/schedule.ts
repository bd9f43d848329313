/**
 * npx tsx bench/ml/schedule.ts [--only synth_500k,shuttle] [--repeats 3] [--configs FILE.json] [--xgb] [--at 100,200]
 * How the default boosting schedule was chosen: every candidate schedule (learning rate, rounds,
 * leaves, early stopping...) trained on the fixed folds of each shared dataset (train, early
 * stopping on val, scored on test), reusing one shared representation per dataset as every model
 * after the first does. Passes of the candidates alternate (a, b, c, a, b, c...) so that they see
 * the same load on this shared machine; each keeps its fastest. Scores are deterministic.
 * Times: wall clock and the process's CPU time (training is single-threaded, so the CPU time is
 * its cost without the waits of a loaded machine; GC threads add a little).
 * --xgb: each pass also fits XGBoost (bench/ml/reference.py, variant xgb: train + val, 100
 * rounds, one thread) so that the ratios ours / XGBoost come from the same run.
 * --at: also the test score of each candidate's model cut to these many rounds.
 * Candidates: a JSON array of { "label": ..., "params": { ...prediction params } } (the
 * built-in list below without --configs; `{}` = the engine's defaults).
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { applyFeaturizer } from "../../src/ml/featurize";
import type { Frame } from "../../src/ml/frame";
import { type GbdtModel, predict } from "../../src/ml/gbdt";
import type { PredictionModelResult, PredictionParams } from "../../src/ml/prediction/model";
import { trainPredictionModel } from "../../src/ml/prediction/train";
import { buildRepresentation } from "../../src/ml/representation/representation";
import { loadBenchDataset } from "../../test/ml/helpers/bench-data";
import { type BenchSpec, DATASETS, datasetFiles, takeRows } from "./datasets";
import { classScores, r2 } from "./measure";
import { ensurePython, runReference } from "./python";

const argv = process.argv.slice(2);
const arg = (name: string) => argv.find((a, i) => argv[i - 1] === name || a.startsWith(`${name}=`))?.replace(`${name}=`, "");
const only = arg("--only")?.split(",");
const repeats = Number(arg("--repeats") ?? 3);
const configsFile = arg("--configs");
const at = arg("--at")?.split(",").map(Number) ?? [];
const withXgb = argv.includes("--xgb") && ensurePython();

interface Candidate {
  label: string;
  params: PredictionParams;
}
const BUILT_IN: Candidate[] = [{ label: "defaults", params: {} }];
const candidates: Candidate[] = configsFile ? JSON.parse(readFileSync(configsFile, "utf8")) : BUILT_IN;
const specs = DATASETS.filter((d) => !only || only.includes(d.name));

/** Test score (r2 or accuracy) of a model, optionally cut to its first `rounds` rounds. */
function testScore(spec: BenchSpec, res: PredictionModelResult, testFrame: Frame, rounds?: number): number {
  const model: GbdtModel = rounds ? { ...res.model, trees: res.model.trees.slice(0, rounds * res.model.numOutputs) } : res.model;
  const m = applyFeaturizer(res.featurizer, testFrame);
  const out = predict(model, m.data, m.numRows);
  const col = testFrame.columns.find((x) => x.name === spec.target)!;
  if (spec.task === "regression") {
    if (col.storage !== "numeric") throw new Error("numeric target expected");
    return r2(col.values, out);
  }
  const index = new Map(model.classes!.map((name, i) => [name, i]));
  const y = Int32Array.from(
    { length: testFrame.rowCount },
    (_, i) => index.get(col.storage === "dictionary" ? col.dictionary[col.codes[i]] : String(col.values[i])) ?? -1,
  );
  const k = model.classes!.length;
  const probs = k === 2 ? Float64Array.from({ length: 2 * y.length }, (_, i) => (i % 2 ? out[i >> 1] : 1 - out[i >> 1])) : out;
  return classScores(y, probs, k).accuracy;
}

console.log(`fastest of ${repeats} alternating passes per candidate${withXgb ? " and XGBoost" : ""}`);
console.log(
  `| dataset | candidate | score | rounds kept / run | stop | trees, leaves | fit s | fit cpu s |${withXgb ? " / XGBoost (wall, cpu) |" : ""}${at.map((r) => ` score @${r} |`).join("")}`,
);
console.log(`|---|---|---:|---:|---|---:|---:|---:|${withXgb ? "---:|" : ""}${at.map(() => "---:|").join("")}`);
for (const spec of specs) {
  const files = datasetFiles(spec.name);
  const { frame, folds } = loadBenchDataset(spec.name, files.csv);
  const fitFrame = takeRows(frame, Int32Array.from([...folds.train, ...folds.val]));
  const nt = folds.train.length;
  const split = { train: Int32Array.from({ length: nt }, (_, i) => i), val: Int32Array.from(folds.val, (_, i) => nt + i) };
  const testFrame = takeRows(frame, folds.test);
  const task = spec.task === "regression" ? "regression" : "classification";
  const representation = buildRepresentation(fitFrame);
  const best = candidates.map(() => Infinity);
  const bestCpu = candidates.map(() => Infinity);
  const xgb = { wall: Infinity, cpu: Infinity, score: Number.NaN };
  const results: (PredictionModelResult | undefined)[] = candidates.map(() => undefined);
  for (let r = 0; r < repeats; r++) {
    for (const [j, c] of candidates.entries()) {
      const t = performance.now();
      const c0 = process.cpuUsage();
      results[j] = trainPredictionModel(fitFrame, { labelColumn: spec.target, task, split, representation, params: c.params });
      const cpu = process.cpuUsage(c0);
      best[j] = Math.min(best[j], (performance.now() - t) / 1000);
      bestCpu[j] = Math.min(bestCpu[j], (cpu.user + cpu.system) / 1e6);
    }
    if (withXgb) {
      const ref = runReference(spec, files.csv, files.folds, 1, ["xgb"]).results.xgb;
      xgb.wall = Math.min(xgb.wall, ref.fit_s);
      xgb.cpu = Math.min(xgb.cpu, ref.fit_cpu_s ?? Infinity);
      xgb.score = (spec.task === "regression" ? ref.r2 : ref.accuracy) ?? Number.NaN;
    }
  }
  if (withXgb) {
    console.log(
      `| ${spec.name} | XGBoost hist, 100 rounds | ${xgb.score.toFixed(4)} | 100 | | | ${xgb.wall.toFixed(3)} | ${xgb.cpu.toFixed(3)} | |${at.map(() => " |").join("")}`,
    );
  }
  for (const [j, c] of candidates.entries()) {
    const res = results[j]!;
    const leaves = res.model.trees.reduce((s, t) => s + t.leafValue.length, 0);
    const ratio = withXgb ? ` ${(best[j] / xgb.wall).toFixed(2)}×, ${(bestCpu[j] / xgb.cpu).toFixed(2)}× |` : "";
    const cut = at.map((rounds) => ` ${rounds <= res.rounds ? testScore(spec, res, testFrame, rounds).toFixed(4) : ""} |`).join("");
    console.log(
      `| ${spec.name} | ${c.label} | ${testScore(spec, res, testFrame).toFixed(4)} | ${res.rounds} / ${res.history.length} | ${res.stopReason} | ` +
        `${res.model.trees.length}, ${leaves} | ${best[j].toFixed(3)} | ${bestCpu[j].toFixed(3)} |${ratio}${cut}`,
    );
  }
}
