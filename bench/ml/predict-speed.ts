/**
 * npx tsx bench/ml/predict-speed.ts [--only diamonds,shuttle] [--repeats 3] [--no-ref] [--cache]
 * Batch prediction only: the engine's predict() on the whole featurized test fold vs XGBoost's
 * inplace_predict on its float32 codes matrix (bench/ml/predict_speed.py, one thread). Absolute
 * times drift by up to 1.5x within minutes on this shared machine, so the passes of the two sides
 * are interleaved (engine, XGBoost, engine, ...); each side reports the median of its passes, by
 * wall clock and by its process's CPU time (what the pass cost when other work shares the cores).
 * Two engine models per dataset: the bench's default one (early stopping, up to 500 rounds, so
 * its tree count differs from XGBoost's) and the 100-round one fit on train + val exactly like
 * XGBoost's. --cache keeps the trained models and test matrices in bench/data/predict-speed/ so
 * that later runs skip training (delete the folder after changing the trainer).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { applyFeaturizer } from "../../src/ml/featurize";
import { type GbdtModel, predict } from "../../src/ml/gbdt";
import { trainPredictionModel } from "../../src/ml/prediction/train";
import { buildRepresentation } from "../../src/ml/representation/representation";
import { loadBenchDataset } from "../../test/ml/helpers/bench-data";
import { type BenchSpec, DATASETS, datasetFiles, LOCAL_DIR, takeRows } from "./datasets";
import { ensurePython } from "./python";

const argv = process.argv.slice(2);
const arg = (name: string) => argv.find((a, i) => argv[i - 1] === name || a.startsWith(`${name}=`))?.replace(`${name}=`, "");
const only = arg("--only")?.split(",");
const repeats = Number(arg("--repeats") ?? 3);
const cacheDir = argv.includes("--cache") ? join(LOCAL_DIR, "predict-speed") : undefined;
const specs = DATASETS.filter((d) => !only || only.includes(d.name));
const withRef = !argv.includes("--no-ref") && ensurePython();

interface Prepared {
  models: { label: string; model: GbdtModel }[];
  data: Float32Array;
  numRows: number;
}

/** The bench's two engine models (see engine.ts) and the featurized test fold. */
async function prepare(spec: BenchSpec): Promise<Prepared> {
  const file = cacheDir && join(cacheDir, `${spec.name}.json`);
  if (file && existsSync(file)) {
    const { models, numRows } = JSON.parse(readFileSync(file, "utf8"));
    const bytes = readFileSync(join(cacheDir, `${spec.name}.f32`));
    return { models, numRows, data: new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4) };
  }
  const { frame, folds } = loadBenchDataset(spec.name, datasetFiles(spec.name).csv);
  const fitFrame = takeRows(frame, Int32Array.from([...folds.train, ...folds.val]));
  const nt = folds.train.length;
  const split = { train: Int32Array.from({ length: nt }, (_, i) => i), val: Int32Array.from(folds.val, (_, i) => nt + i) };
  const all = { train: Int32Array.from({ length: fitFrame.rowCount }, (_, i) => i), val: new Int32Array(0) };
  const task = spec.task === "regression" ? "regression" : "classification";
  const representation = buildRepresentation(fitFrame);
  const opts = { labelColumn: spec.target, task, representation } as const;
  const dflt = trainPredictionModel(fitFrame, { ...opts, split });
  const fixed = trainPredictionModel(fitFrame, { ...opts, split: all, params: { max_rounds: 100, early_stopping_rounds: 0 } });
  const { data, numRows } = applyFeaturizer(dflt.featurizer, takeRows(frame, folds.test));
  const out = {
    models: [
      { label: "default", model: dflt.model },
      { label: "100 rounds", model: fixed.model },
    ],
    data,
    numRows,
  };
  if (file && cacheDir) {
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(file, JSON.stringify({ models: out.models, numRows }));
    writeFileSync(join(cacheDir, `${spec.name}.f32`), data);
  }
  return out;
}

interface XgbInfo {
  test_rows: number;
  trees: number;
  leaves: number;
  nthread: string;
}

/** A running predict_speed.py: its model's description, and one timed pass per call. */
async function startXgb(spec: BenchSpec) {
  const { csv, folds } = datasetFiles(spec.name);
  const args = ["bench/ml/predict_speed.py", "--csv", csv, "--folds", folds, "--target", spec.target, "--task", spec.task];
  const py = spawn("/usr/bin/python3", args, { env: { ...process.env, OMP_NUM_THREADS: "1" }, stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: py.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const r = await lines.next();
    if (r.done) throw new Error(`predict_speed.py for ${spec.name} exited`);
    return r.value;
  };
  const info: XgbInfo = JSON.parse(await next());
  return {
    info,
    pass: async () => {
      py.stdin.write("go\n");
      const [wall, cpu] = (await next()).split(" ").map(Number);
      return { wall, cpu };
    },
    stop: () => py.stdin.end(),
  };
}

const ms = (s: number) => (s * 1000).toFixed(s < 0.01 ? 2 : 1);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
/** Seconds of this process's CPU time (user + system) since `from`. */
const cpuSince = (from: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(from);
  return (u.user + u.system) / 1e6;
};
const lines = [
  "| dataset | test rows | XGBoost ms wall / CPU (trees, leaves) | engine model | trees, leaves | engine ms wall / CPU | engine / XGBoost: wall, CPU | ns per row × tree (CPU): engine / XGBoost |",
  "|---|---:|---:|---|---:|---:|---:|---:|",
];
for (const spec of specs) {
  const { models, data, numRows } = await prepare(spec);
  const xgb = withRef ? await startXgb(spec) : undefined;
  if (xgb && xgb.info.nthread !== "1") console.warn(`  ${spec.name}: XGBoost nthread=${xgb.info.nthread}, not 1`);
  for (const { model } of models) predict(model, data, numRows); // warm-up: compile + JIT
  const wall: number[][] = models.map(() => []);
  const cpu: number[][] = models.map(() => []);
  const xgbWall: number[] = [];
  const xgbCpu: number[] = [];
  for (let r = 0; r < repeats; r++) {
    for (const [j, { model }] of models.entries()) {
      const [t, c] = [performance.now(), process.cpuUsage()];
      predict(model, data, numRows);
      cpu[j].push(cpuSince(c));
      wall[j].push((performance.now() - t) / 1000);
    }
    if (xgb) {
      const p = await xgb.pass();
      xgbWall.push(p.wall);
      xgbCpu.push(p.cpu);
    }
  }
  xgb?.stop();
  const [xw, xc] = xgb ? [median(xgbWall), median(xgbCpu)] : [undefined, undefined];
  for (const [j, { label, model }] of models.entries()) {
    const leaves = model.trees.reduce((s, tr) => s + tr.leafValue.length, 0);
    const perTree = (s: number, trees: number) => ((s * 1e9) / (numRows * trees)).toFixed(1);
    const [w, c] = [median(wall[j]), median(cpu[j])];
    lines.push(
      `| ${spec.name} | ${numRows} | ${xw && xc && xgb ? `${ms(xw)} / ${ms(xc)} (${xgb.info.trees}, ${xgb.info.leaves})` : "—"} | ${label} | ` +
        `${model.trees.length}, ${leaves} | ${ms(w)} / ${ms(c)} | ${xw && xc ? `${(w / xw).toFixed(2)}×, ${(c / xc).toFixed(2)}×` : "—"} | ` +
        `${perTree(c, model.trees.length)} / ${xc && xgb ? perTree(xc, xgb.info.trees) : "—"} |`,
    );
    console.log(lines.at(-1));
  }
}
console.log(`\nmedian of ${repeats} interleaved passes each; XGBoost: 100 rounds on train + val, inplace_predict, nthread=1\n`);
console.log(lines.join("\n"));
