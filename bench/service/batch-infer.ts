/**
 * The trainer's batch inference path in one process, without the service around it: a prediction
 * model trained as the service trains it (defaults: the model search, on the 3 000-row table of
 * ./batch-parts.ts), then the rows of the large table through `inferRows` (featurize, the ONNX
 * graph in onnxruntime-web, the answer table) and the csv a part hands back. The graph's own time
 * is measured both ways: every row through it (what batch inference did before) and once per
 * group of rows the trees answer alike (src/ml/gbdt/alike-rows.ts), with each row's outputs
 * compared bit for bit with its group's. Reference: XGBoost (./batch-parts-reference.py) predicting the same rows, and the
 * engine's own predictor (src/ml/gbdt/predict.ts) on the same matrix.
 *
 * Usage: npx tsx bench/service/batch-infer.ts [rows=1000000] [ungroupedRows=100000]
 * Writes bench/service/BATCH-INFER-RESULTS.md.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createNodeSession } from "../../src/container/node-ort";
import { groupRows } from "../../src/inference/alike-rows";
import { partResult } from "../../src/inference/batch-parts";
import { inferRows } from "../../src/inference/batch-run";
import type { ModelRuntime } from "../../src/inference/model-runtime";
import { runGraph } from "../../src/inference/run-graph";
import { readCsv } from "../../src/ingest/csv";
import { applyFeaturizer } from "../../src/ml/featurize";
import { alikeRows } from "../../src/ml/gbdt/alike-rows";
import { predict } from "../../src/ml/gbdt/predict";
import { exportGbdtToOnnx } from "../../src/ml/onnx/export";
import { trainPredictionModel } from "../../src/ml/prediction/train";
import { FEATURIZER_FORMAT, parseModelArtifact } from "../../src/model-types/artifact";
import { ARTIFACT_FILES } from "../../src/storage/keys";
import { table } from "../../test/e2e/service";

const ROWS = Number(process.argv[2] ?? 1_000_000);
const UNGROUPED_ROWS = Math.min(ROWS, Number(process.argv[3] ?? 100_000));
const utf8 = new TextEncoder();
const seconds = (t0: number) => (performance.now() - t0) / 1000;
const f = (x: number) => x.toFixed(2);

const smallCsv = table(3_000);
const largeCsv = table(ROWS);
let t0 = performance.now();
const trained = trainPredictionModel((await readCsv(utf8.encode(smallCsv))).frame, { labelColumn: "churned" });
const trainS = seconds(t0);
const onnx = exportGbdtToOnnx(trained.model, { name: "bench" });
const gbdtJson = utf8.encode(JSON.stringify(trained.model));
const artifact = parseModelArtifact(
  JSON.stringify({
    format: FEATURIZER_FORMAT,
    model_type: "prediction",
    task: trained.task,
    label_column: "churned",
    classes: trained.classes,
    featurizer: trained.featurizer,
    onnx: { input: "features", outputs: ["probabilities", "label", "raw_score"], num_features: trained.model.numFeatures },
  }),
);
const session = await createNodeSession(onnx);
const runtime: ModelRuntime = {
  readFile: async (_v, file) => (file === ARTIFACT_FILES.onnx ? onnx : file === ARTIFACT_FILES.gbdt ? gbdtJson : null),
  withSession: async (_key, _load, fn) => fn(session),
};
const frame = (await readCsv(utf8.encode(largeCsv))).frame;
const m = applyFeaturizer(trained.featurizer, frame);
const F = m.numFeatures;
const outputs = { outputs: ["probabilities", "label"], chunked: false };

// the graph over every row (on the first UNGROUPED_ROWS rows: it is slow), and once per group
// (the trees compiled for grouping first, once per model: ../../src/ml/gbdt/flat)
t0 = performance.now();
alikeRows(trained.model, m.data, 1);
const compileS = seconds(t0);
t0 = performance.now();
const every = await runGraph(session, m.data.subarray(0, UNGROUPED_ROWS * F), UNGROUPED_ROWS, F, outputs);
const everyS = seconds(t0);
t0 = performance.now();
const groups = alikeRows(trained.model, m.data.subarray(0, UNGROUPED_ROWS * F), UNGROUPED_ROWS);
if (!groups) throw new Error("the model's rows are not grouped");
const firsts = await runGraph(session, groupRows(m.data, F, groups), groups.count, F, outputs);
const groupedS = seconds(t0);
// each row's outputs in the run over every row are its group's in the run over the groups
const same = Object.entries(every).every(([name, o]) => {
  const width = o.data.length / UNGROUPED_ROWS;
  return o.data.every((v, k) => Object.is(v, firsts[name].data[groups.of[Math.floor(k / width)] * width + (k % width)]));
});

// the whole path, every row, twice (the first run also parses gbdt.json and compiles the trees)
const version = { id: "bench", version: 1, artifactKey: null };
const paths: { inferS: number; csvS: number }[] = [];
for (let run = 0; run < 2; run++) {
  t0 = performance.now();
  const rows = await inferRows(runtime, version, artifact, frame, { start: 0, end: ROWS }, async () => {}, { groupAlikeRows: true });
  const inferS = seconds(t0);
  t0 = performance.now();
  partResult(rows, { start: 0, end: ROWS });
  paths.push({ inferS, csvS: seconds(t0) });
}
t0 = performance.now();
predict(trained.model, m.data, ROWS);
const engineS = seconds(t0);

const dir = mkdtempSync(join(tmpdir(), "bench-batch-infer-"));
writeFileSync(join(dir, "train.csv"), smallCsv);
writeFileSync(join(dir, "score.csv"), largeCsv);
const ref = JSON.parse(
  execFileSync(
    "/usr/bin/python3",
    ["bench/service/batch-parts-reference.py", "--train", join(dir, "train.csv"), "--score", join(dir, "score.csv"), "--target", "churned"],
    {
      encoding: "utf8",
    },
  ),
);
rmSync(dir, { recursive: true, force: true });

const best = paths.reduce((a, b) => (a.inferS + a.csvS <= b.inferS + b.csvS ? a : b));
const xgb1 = ref.jobs_1.predict_s;
const perMillion = (s: number, rows: number) => (s * 1_000_000) / rows;
const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
const md = `# The trainer's batch inference path in one process

Command: \`npx tsx bench/service/batch-infer.ts ${ROWS} ${UNGROUPED_ROWS}\` — ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, at commit ${commit}. Load average at the end: ${loadavg()
  .map((l) => l.toFixed(2))
  .join(" / ")} (2 cores, shared with other work: noisy).

The model: a prediction model trained as the service trains it (defaults, model search) on the 3 000-row table of ./batch-parts.ts in ${f(trainS)} s: ${trained.model.trees.length} trees. The rows: the ${ROWS.toLocaleString("en")}-row table of the same benchmark (usage, plan), featurized once.

The ONNX graph (onnxruntime-web wasm, one thread), on the first ${UNGROUPED_ROWS.toLocaleString("en")} rows:

| | s | s per 1 M rows |
|---|---:|---:|
| every row through the graph (before) | ${f(everyS)} | ${f(perMillion(everyS, UNGROUPED_ROWS))} |
| once per group of rows the trees answer alike (${groups.count.toLocaleString("en")} groups; grouping included, the trees' compilation for it, ${f(compileS)} s once per model, not) | ${f(groupedS)} | ${f(perMillion(groupedS, UNGROUPED_ROWS))} |

Outputs bit-identical between the two: **${same ? "yes" : "NO"}**.

The whole path on all ${ROWS.toLocaleString("en")} rows (\`inferRows\`: featurize, graph, answer table; then the csv a part hands back), best of 2: infer ${f(best.inferS)} s, csv ${f(best.csvS)} s (runs: ${paths.map((p) => `${f(p.inferS)} + ${f(p.csvS)}`).join(", ")}). The engine's own predictor (\`predict\`, same matrix, same trees): ${f(engineS)} s.

Reference, XGBoost ${ref.xgboost} predicting the same ${ROWS.toLocaleString("en")} rows (predict_proba, a 100-round model, ./batch-parts-reference.py): ${f(ref.jobs_1.predict_s)} s with 1 thread, ${f(ref.jobs_2.predict_s)} s with 2; its whole read + predict + write ${f(ref.jobs_1.total_s)} s (1 thread).

| ours / XGBoost predict (1 thread) | ratio |
|---|---:|
| graph, every row (before, per 1 M rows) | ${(perMillion(everyS, UNGROUPED_ROWS) / xgb1).toFixed(2)}× |
| graph, grouped (per 1 M rows) | ${(perMillion(groupedS, UNGROUPED_ROWS) / xgb1).toFixed(2)}× |
| \`inferRows\` on every row (featurize + graph + answer table) | ${(best.inferS / xgb1).toFixed(2)}× |
| \`inferRows\` + csv vs XGBoost's predict + write | ${((best.inferS + best.csvS) / (ref.jobs_1.predict_s + ref.jobs_1.write_s)).toFixed(2)}× |
`;
writeFileSync("bench/service/BATCH-INFER-RESULTS.md", md);
console.log(md);
