/**
 * npx tsx bench/ml/predict-speed.ts [--only diamonds,shuttle] [--repeats 3] [--no-ref] [--cache]
 * Batch prediction only: the engine's predict() on the whole featurized test fold vs XGBoost's
 * inplace_predict on its float32 codes matrix (bench/ml/predict_speed.py, one thread). Absolute
 * times drift by up to 1.5x within minutes on this shared machine, so the passes of the two sides
 * are interleaved (engine, XGBoost, engine, ...); each side reports the median of its passes, by
 * wall clock and by its process's CPU time (what the pass cost when other work shares the cores).
 * Two engine models per dataset: the default one (since issue 29 the model search's choice, e.g.
 * 370 trees of up to 128 leaves, so its size differs from XGBoost's) and the 100-round one fit on
 * train + val like XGBoost's. XGBoost's 100-round model is the fixed reference; besides it, each
 * engine model is compared with an XGBoost model of the same shape (same rounds, at most as many
 * leaves per tree via lossguide/max_leaves, the same depth limit and learning rate, fit on the
 * same rows), so that that ratio compares the predictors and not the models' sizes.
 * --cache keeps the trained models, their shapes and the test matrices in
 * bench/data/predict-speed/ so that later runs skip training (delete the folder after changing
 * the trainer).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { applyFeaturizer } from "../../src/ml/featurize";
import { type GbdtModel, predict } from "../../src/ml/gbdt";
import type { Tree } from "../../src/ml/gbdt/model";
import { defaultLearningRate } from "../../src/ml/gbdt/schedule";
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

/** What an XGBoost model of the same shape as an engine model is trained with (predict_speed.py). */
interface Shape {
  rounds: number;
  maxLeaves: number;
  /** 0: unlimited. */
  maxDepth: number;
  learningRate: number;
}

interface Prepared {
  models: { label: string; model: GbdtModel; shape: Shape }[];
  data: Float32Array;
  numRows: number;
}

/** The bench's two engine models (see engine.ts) and the featurized test fold. */
async function prepare(spec: BenchSpec): Promise<Prepared> {
  const file = cacheDir && join(cacheDir, `${spec.name}.json`);
  if (file && existsSync(file)) {
    const { models, numRows } = JSON.parse(readFileSync(file, "utf8"));
    if (!models[0].shape) throw new Error(`${file}: cached before the models' shapes were kept; delete ${cacheDir}`);
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
  // the searched model's rate is its best trial's (a blend's members: see Shape's use below)
  const best = dflt.search?.trials.find((t) => t.trial === dflt.search?.best)?.params;
  const out = {
    models: [
      { label: "default", model: dflt.model, shape: shapeOf(dflt.model, best?.learning_rate ?? defaultLearningRate(nt)) },
      { label: "100 rounds", model: fixed.model, shape: shapeOf(fixed.model, defaultLearningRate(fitFrame.rowCount)) },
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

/**
 * An engine model's shape: its rounds, its largest tree's leaves and depth (the limits it was
 * grown under, as reached: a blend of a search's trials may mix several), and the rate given.
 */
function shapeOf(model: GbdtModel, learningRate: number): Shape {
  const depth = (t: Tree, n: number): number => (n < 0 ? 0 : 1 + Math.max(depth(t, t.left[n]), depth(t, t.right[n])));
  return {
    rounds: model.trees.length / model.numOutputs,
    maxLeaves: Math.max(2, ...model.trees.map((t) => t.leafValue.length)),
    maxDepth: Math.max(1, ...model.trees.map((t) => (t.left.length ? depth(t, 0) : 0))),
    learningRate,
  };
}

interface XgbModelInfo {
  trees: number;
  leaves: number;
}
interface XgbInfo extends XgbModelInfo {
  test_rows: number;
  nthread: string;
  /** The same-shape models, in the order of the shapes given. */
  shaped: XgbModelInfo[];
}

/**
 * A running predict_speed.py: its models' descriptions, and one timed pass per call (the
 * reference model, then each same-shape model: seconds wall and CPU each).
 */
async function startXgb(spec: BenchSpec, shapes: Shape[]) {
  const { csv, folds } = datasetFiles(spec.name);
  const args = ["bench/ml/predict_speed.py", "--csv", csv, "--folds", folds, "--target", spec.target, "--task", spec.task];
  args.push("--shapes", JSON.stringify(shapes));
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
      const t = (await next()).split(" ").map(Number);
      return Array.from({ length: t.length / 2 }, (_, i) => ({ wall: t[2 * i], cpu: t[2 * i + 1] }));
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
const ratios = (w: number, c: number, x?: { wall: number; cpu: number }) => (x ? `${(w / x.wall).toFixed(2)}×, ${(c / x.cpu).toFixed(2)}×` : "—");
const lines = [
  "| dataset | test rows | XGBoost ms wall / CPU (trees, leaves) | engine model | trees, leaves | engine ms wall / CPU | engine / XGBoost: wall, CPU | ns per row × tree (CPU): engine / XGBoost " +
    "| same-shape XGBoost: rounds, max leaves, depth, rate | same-shape XGBoost ms wall / CPU (trees, leaves) | engine / same-shape XGBoost: wall, CPU | ns per row × tree (CPU): same-shape XGBoost |",
  "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
];
for (const spec of specs) {
  const { models, data, numRows } = await prepare(spec);
  const xgb = withRef
    ? await startXgb(
        spec,
        models.map((m) => m.shape),
      )
    : undefined;
  if (xgb && xgb.info.nthread !== "1") console.warn(`  ${spec.name}: XGBoost nthread=${xgb.info.nthread}, not 1`);
  for (const { model } of models) predict(model, data, numRows); // warm-up: compile + JIT
  const wall: number[][] = models.map(() => []);
  const cpu: number[][] = models.map(() => []);
  // XGBoost's passes: [0] the 100-round reference, [1 + j] the shape of engine model j
  const xgbWall: number[][] = [[], ...models.map(() => [])];
  const xgbCpu: number[][] = [[], ...models.map(() => [])];
  for (let r = 0; r < repeats; r++) {
    for (const [j, { model }] of models.entries()) {
      const [t, c] = [performance.now(), process.cpuUsage()];
      predict(model, data, numRows);
      cpu[j].push(cpuSince(c));
      wall[j].push((performance.now() - t) / 1000);
    }
    if (xgb) {
      for (const [j, p] of (await xgb.pass()).entries()) {
        xgbWall[j].push(p.wall);
        xgbCpu[j].push(p.cpu);
      }
    }
  }
  xgb?.stop();
  const x = xgbWall.map((w, j) => (xgb ? { wall: median(w), cpu: median(xgbCpu[j]) } : undefined));
  const perTree = (s: number, trees: number) => ((s * 1e9) / (numRows * trees)).toFixed(1);
  const described = (t?: { wall: number; cpu: number }, m?: XgbModelInfo) =>
    t && m ? `${ms(t.wall)} / ${ms(t.cpu)} (${m.trees}, ${m.leaves})` : "—";
  for (const [j, { label, model, shape }] of models.entries()) {
    const leaves = model.trees.reduce((s, tr) => s + tr.leafValue.length, 0);
    const [w, c] = [median(wall[j]), median(cpu[j])];
    const [ref, same, sameInfo] = [x[0], x[1 + j], xgb?.info.shaped[j]];
    lines.push(
      `| ${spec.name} | ${numRows} | ${described(ref, xgb?.info)} | ${label} | ${model.trees.length}, ${leaves} | ${ms(w)} / ${ms(c)} | ${ratios(w, c, ref)} | ` +
        `${perTree(c, model.trees.length)} / ${ref && xgb ? perTree(ref.cpu, xgb.info.trees) : "—"} | ` +
        `${shape.rounds}, ${shape.maxLeaves}, ${shape.maxDepth}, ${shape.learningRate} | ${described(same, sameInfo)} | ${ratios(w, c, same)} | ` +
        `${same && sameInfo ? perTree(same.cpu, sameInfo.trees) : "—"} |`,
    );
    console.log(lines.at(-1));
  }
}
console.log(
  `\nmedian of ${repeats} interleaved passes each; XGBoost: 100 rounds on train + val, and one model per engine model of its shape (lossguide), inplace_predict, nthread=1\n`,
);
console.log(lines.join("\n"));
