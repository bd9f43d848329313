/**
 * npx tsx bench/ml/threads.ts [--only fertility,synth_500k] [--repeats 3]
 * Our GBDT's fit on 1 thread and on every core (the trainer's threads, src/container/gbdt-threads)
 * against XGBoost hist at nthread 1 and every core, in the same run: the references' protocol
 * (fit on train + val, exactly 100 rounds), each fit `repeats` times, the median wall time.
 * Also a 1,000-row model with and without the threads (start-up must not cost it anything).
 * Prints a markdown table; the results are in bench/ml/THREADS.md.
 */
import { execFileSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { performance } from "node:perf_hooks";
import { GbdtThreads } from "../../src/container/gbdt-threads";
import { applyFeaturizer } from "../../src/ml/featurize";
import { predict } from "../../src/ml/gbdt";
import type { ParallelExecutor } from "../../src/ml/parallel";
import { trainPredictionModel } from "../../src/ml/prediction/train";
import { buildRepresentation } from "../../src/ml/representation/representation";
import { loadBenchDataset } from "../../test/ml/helpers/bench-data";
import { DATASETS, datasetFiles, takeRows } from "./datasets";
import { score } from "./engine";

const argv = process.argv.slice(2);
const arg = (name: string) => argv.find((_, i) => argv[i - 1] === name);
const only = (arg("--only") ?? "fertility,synth_500k").split(",");
const repeats = Number(arg("--repeats") ?? 3);
const cores = availableParallelism();
const pool = new GbdtThreads(cores);
pool.warm();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
function timed<T>(fn: () => T): { s: number; value: T } {
  const t = performance.now();
  const value = fn();
  return { s: (performance.now() - t) / 1000, value };
}

const lines: string[] = [];
for (const name of only) {
  const spec = DATASETS.find((d) => d.name === name);
  if (!spec) throw new Error(`unknown dataset ${name}`);
  const { csv, folds: foldsPath } = datasetFiles(name);
  const { frame, folds } = loadBenchDataset(name, csv);
  const fitFrame = takeRows(frame, Int32Array.from([...folds.train, ...folds.val]));
  const task = spec.task === "regression" ? "regression" : "classification";
  const representation = await buildRepresentation(fitFrame);
  const split = { train: Int32Array.from({ length: fitFrame.rowCount }, (_, i) => i), val: new Int32Array(0) };
  const trainModel = (parallel?: ParallelExecutor) =>
    trainPredictionModel(fitFrame, {
      labelColumn: spec.target,
      task,
      split,
      representation,
      params: { max_rounds: 100, early_stopping_rounds: 0 },
      parallel,
    });
  // alternate the two, so that the machine's load falls on both alike
  const t1: number[] = [];
  const tAll: number[] = [];
  let model1 = "";
  let modelAll = "";
  for (let i = 0; i < repeats; i++) {
    const a = timed(() => trainModel());
    t1.push(a.s);
    model1 = JSON.stringify(a.value.model);
    const b = timed(() => trainModel(pool));
    tAll.push(b.s);
    modelAll = JSON.stringify(b.value.model);
    console.log(`  ${name}: ours 1 thread ${a.s.toFixed(3)} s, ${cores} threads ${b.s.toFixed(3)} s`);
  }
  const identical = model1 === modelAll;
  const py = execFileSync(
    "/usr/bin/python3",
    [
      "bench/ml/threads_ref.py",
      "--csv",
      csv,
      "--folds",
      foldsPath,
      "--target",
      spec.target,
      "--task",
      spec.task,
      "--cores",
      String(cores),
      "--repeats",
      String(repeats),
    ],
    // passive: OpenMP's spinning waits make nthread > 1 several times slower on a shared machine
    { env: { ...process.env, OMP_WAIT_POLICY: "PASSIVE" }, stdio: ["ignore", "pipe", "inherit"], maxBuffer: 1 << 24 },
  );
  const ref = JSON.parse(py.toString()) as Record<string, { fit_s: number; r2?: number; accuracy?: number }>;
  const metric = spec.task === "regression" ? "r2" : "accuracy";
  const testFrame = takeRows(frame, folds.test);
  const m = trainModel();
  const feat = applyFeaturizer(m.featurizer, testFrame);
  const oursScore =
    (score(spec, m.model, testFrame, predict(m.model, feat.data, feat.numRows)) as { r2?: number; accuracy?: number })[metric] ?? Number.NaN;
  const x1 = ref["1"].fit_s;
  const xAll = ref[String(cores)].fit_s;
  const o1 = median(t1);
  const oAll = median(tAll);
  lines.push(
    `| ${name} | ${metric} ${oursScore.toFixed(4)} / ${(ref["1"][metric] ?? Number.NaN).toFixed(4)} | ${o1.toFixed(3)} | ${oAll.toFixed(3)} | ${(o1 / oAll).toFixed(2)}× | ${x1.toFixed(3)} | ${xAll.toFixed(3)} | ${(x1 / xAll).toFixed(2)}× | ${(o1 / x1).toFixed(2)}× | ${(oAll / xAll).toFixed(2)}× | ${identical ? "yes" : "**no**"} |`,
  );
}

// a 1,000-row model: the threads must cost it nothing (it never uses them)
{
  const { csv } = datasetFiles("fertility");
  const { frame } = loadBenchDataset("fertility", csv);
  const small = takeRows(
    frame,
    Int32Array.from({ length: 1000 }, (_, i) => i),
  );
  const representation = await buildRepresentation(small);
  const trainModel = (parallel?: ParallelExecutor) =>
    trainPredictionModel(small, { labelColumn: "morekids", task: "classification", representation, params: { search: "off" }, parallel });
  for (let i = 0; i < 5; i++) trainModel(); // warm-up
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < 15; i++) {
    const s1 = performance.now();
    trainModel();
    const s2 = performance.now();
    trainModel(pool);
    a.push(s2 - s1);
    b.push(performance.now() - s2);
  }
  lines.push(
    "",
    `1,000 rows of fertility (defaults but no search: one model), median of 15: 1 thread ${median(a).toFixed(1)} ms, with the threads ${median(b).toFixed(1)} ms (${(median(b) / median(a)).toFixed(2)}×).`,
  );
}

console.log(
  [
    "",
    `${cores} cores; fit on train + val, 100 rounds; median of ${repeats} fits each (ours 1 thread and all threads alternate); XGBoost hist with OMP_WAIT_POLICY=PASSIVE.`,
    "",
    "| dataset | test score ours / XGBoost | ours 1 thread s | ours all s | ours speed-up | XGBoost 1 s | XGBoost all s | XGBoost speed-up | ours/XGB 1 | ours/XGB all | 1 = all bit for bit |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...lines,
  ].join("\n"),
);
await pool.close();
