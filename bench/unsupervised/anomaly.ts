/**
 * npx tsx bench/unsupervised/anomaly.ts [--quick] [--no-timing]
 *
 * Our anomaly model (isolation forest, and blended with the encoder's reconstruction error) vs
 * scikit-learn's IsolationForest (n_estimators 200, max_samples 256) on the same float32
 * matrices (our featurizer's output, written to /tmp), single thread:
 * - ROC-AUC on the evaluation rows of each dataset (./anomaly-data), mean over 5 seeds each side;
 * - the default cut: share flagged, precision and recall of `is_anomaly` (ours: the modified
 *   z-score rule; sklearn: its contamination="auto" cut, score > 0.5);
 * - scoring time of 500k rows: ours (engine) vs sklearn score_samples, best of 3, wall and CPU.
 * Prints the tables (also written to /tmp/anomaly-bench/results.md); anomaly-RESULTS.md quotes them.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { applyFeaturizer, type FeatureMatrix } from "../../src/ml/featurize";
import type { Frame } from "../../src/ml/frame";
import { type AnomalyMethod, scoreAnomalyMatrix } from "../../src/ml/iforest/anomaly-scorer";
import { buildRepresentation, type Representation } from "../../src/ml/representation/representation";
import { reconstructionErrors } from "../../src/ml/ssl/encoder";
import { type AnomalyModel, type AnomalyParams, trainAnomalySteps } from "../../src/ml/unsupervised/anomaly";
import { takeRows } from "../ml/datasets";
import { auc } from "../ml/measure";
import { type AnomalyBench, loadAll, planted } from "./anomaly-data";

const argv = process.argv.slice(2);
const quick = argv.includes("--quick");
const timing = !argv.includes("--no-timing");
const SEEDS = quick ? [0] : [0, 1, 2, 3, 4];
const TIMING_ROWS = 500_000;
const REPEATS = 3;
const TMP = "/tmp/anomaly-bench";
mkdirSync(TMP, { recursive: true });

interface Cut {
  flagged: number;
  precision: number;
  recall: number;
}
interface OursResult {
  auc: number[];
  /** Blended runs: the reconstruction error alone (the same shared encoder for every seed). */
  reconAuc?: number;
  cut: Cut[];
  fitS: number;
}

function train(frame: Frame, rep: Representation, params: AnomalyParams): AnomalyModel {
  const steps = trainAnomalySteps(frame, { representation: rep, params });
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

function cutStats(flags: Uint8Array, y: Int32Array): Cut {
  let tp = 0;
  let flagged = 0;
  let pos = 0;
  for (let i = 0; i < y.length; i++) {
    flagged += flags[i];
    pos += y[i];
    if (flags[i] && y[i]) tp++;
  }
  return { flagged: flagged / y.length, precision: tp / Math.max(1, flagged), recall: tp / Math.max(1, pos) };
}

function writeRaw(path: string, a: Float32Array | Int32Array | Uint8Array): string {
  writeFileSync(path, new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  return path;
}

const mean = (a: number[]) => a.reduce((s, x) => s + x, 0) / a.length;
const sd = (a: number[]) => Math.sqrt(mean(a.map((x) => (x - mean(a)) ** 2)));
const f3 = (x: number) => x.toFixed(3);
const f4 = (x: number) => x.toFixed(4);

const benches: AnomalyBench[] = loadAll();
const ours: Record<string, Record<AnomalyMethod, OursResult>> = {};
const jobs: unknown[] = [];
for (const b of benches) {
  const fitFrame = takeRows(b.frame, b.fit);
  const evalFrame = takeRows(b.frame, b.evaluate);
  const y = Int32Array.from(b.evaluate, (r) => b.labels[r]);
  const t0 = performance.now();
  const rep = buildRepresentation(fitFrame, { seed: 0 });
  const repS = (performance.now() - t0) / 1000;
  const rates = `${((100 * y.reduce((s, v) => s + v, 0)) / y.length).toFixed(1)}%`;
  console.log(
    `\n== ${b.name}: ${b.frame.rowCount} rows, fit ${b.fit.length}, evaluate ${b.evaluate.length} (${rates} anomalies); representation ${repS.toFixed(1)} s`,
  );
  ours[b.name] = {} as Record<AnomalyMethod, OursResult>;
  let evalMatrix: FeatureMatrix | null = null;
  for (const method of ["isolation_forest", "blended"] as AnomalyMethod[]) {
    const r: OursResult = { auc: [], cut: [], fitS: Infinity };
    for (const seed of SEEDS) {
      const t = performance.now();
      const model = train(fitFrame, rep, { method, seed });
      r.fitS = Math.min(r.fitS, (performance.now() - t) / 1000);
      evalMatrix ??= applyFeaturizer(model.featurizer, evalFrame);
      const { scores, isAnomaly } = scoreAnomalyMatrix(model.scorer, evalMatrix);
      r.auc.push(auc(y, scores));
      r.cut.push(cutStats(isAnomaly, y));
      if (model.scorer.encoder) r.reconAuc = auc(y, reconstructionErrors(model.scorer.encoder, evalMatrix.data, evalMatrix.numRows));
      if (seed === SEEDS[0] && method === "isolation_forest") {
        const all = applyFeaturizer(model.featurizer, b.frame);
        jobs.push({
          name: b.name,
          matrix: writeRaw(`${TMP}/${b.name}.f32`, all.data),
          rows: all.numRows,
          cols: all.numFeatures,
          fit: writeRaw(`${TMP}/${b.name}.fit.i32`, b.fit),
          evaluate: writeRaw(`${TMP}/${b.name}.eval.i32`, b.evaluate),
          labels: writeRaw(`${TMP}/${b.name}.labels.u8`, b.labels),
        });
      }
    }
    ours[b.name][method] = r;
    console.log(
      `${method}: AUC ${f4(mean(r.auc))} ± ${f4(sd(r.auc))}, fit ${r.fitS.toFixed(2)} s, default cut flags ${f3(mean(r.cut.map((c) => c.flagged)))}`,
    );
  }
}

// ---- scoring time, 500k rows ----
let timed: { rows: number; oursWall: number; oursCpu: number; blendedWall: number; blendedCpu: number; checksum: number } | null = null;
let timingJob: unknown = null;
if (timing) {
  const big = planted(TIMING_ROWS, 11);
  const rep = buildRepresentation(big.frame, { seed: 0 });
  const measure = (model: AnomalyModel, m: FeatureMatrix) => {
    let wall = Infinity;
    let cpu = Infinity;
    let checksum = 0;
    for (let k = 0; k < REPEATS; k++) {
      const w = performance.now();
      const c = process.cpuUsage();
      const { scores } = scoreAnomalyMatrix(model.scorer, m);
      cpu = Math.min(cpu, process.cpuUsage(c).user / 1e6);
      wall = Math.min(wall, (performance.now() - w) / 1000);
      checksum = scores.reduce((s, x) => s + x, 0);
    }
    return { wall, cpu, checksum };
  };
  const forest = train(big.frame, rep, { method: "isolation_forest", seed: 0 });
  const m = applyFeaturizer(forest.featurizer, big.frame);
  const f = measure(forest, m);
  const blended = measure(train(big.frame, rep, { method: "blended", seed: 0 }), m);
  timed = { rows: TIMING_ROWS, oursWall: f.wall, oursCpu: f.cpu, blendedWall: blended.wall, blendedCpu: blended.cpu, checksum: f.checksum };
  console.log(
    `\nscoring ${TIMING_ROWS} rows: ours ${f.wall.toFixed(2)} s wall / ${f.cpu.toFixed(2)} s CPU; blended ${blended.wall.toFixed(2)} s wall`,
  );
  timingJob = { matrix: writeRaw(`${TMP}/timing.f32`, m.data), rows: m.numRows, cols: m.numFeatures, repeats: REPEATS };
}

// ---- scikit-learn, same matrices, same run ----
console.log("\nrunning scikit-learn ...");
const ref = JSON.parse(
  execFileSync("/usr/bin/python3", ["bench/unsupervised/anomaly_reference.py"], {
    input: JSON.stringify({ seeds: SEEDS, n_estimators: 200, max_samples: 256, datasets: jobs, timing: timingJob }),
    env: { ...process.env, OMP_NUM_THREADS: "1", OPENBLAS_NUM_THREADS: "1", MKL_NUM_THREADS: "1" },
    stdio: ["pipe", "pipe", "inherit"],
    maxBuffer: 1 << 24,
  }).toString(),
) as {
  versions: Record<string, string>;
  datasets: Record<string, { auc: number; flagged: number; precision: number; recall: number }[]>;
  timing: { wall_s: number; cpu_s: number } | null;
};

// ---- report ----
const lines: string[] = [];
lines.push(
  "| dataset | rows fit / eval | anomalies | ours iforest AUC | sklearn AUC | ours − sklearn | ours blended AUC | reconstruction error alone |",
);
lines.push("|---|---|---:|---:|---:|---:|---:|---:|");
let wins = 0;
for (const b of benches) {
  const o = ours[b.name];
  const s = ref.datasets[b.name].map((r) => r.auc);
  const diff = mean(o.isolation_forest.auc) - mean(s);
  if (diff >= 0) wins++;
  const rate = (100 * b.evaluate.reduce((a, r) => a + b.labels[r], 0)) / b.evaluate.length;
  lines.push(
    `| ${b.name} | ${b.fit.length} / ${b.evaluate.length} | ${rate.toFixed(1)}% | ${f4(mean(o.isolation_forest.auc))} ± ${f4(sd(o.isolation_forest.auc))} | ${f4(mean(s))} ± ${f4(sd(s))} | ${diff >= 0 ? "+" : ""}${f4(diff)} | ${f4(mean(o.blended.auc))} ± ${f4(sd(o.blended.auc))} | ${f4(o.blended.reconAuc ?? NaN)} |`,
  );
}
const cutLines: string[] = [];
cutLines.push(
  "| dataset | ours iforest: flagged / precision / recall | ours blended: flagged / precision / recall | sklearn auto (> 0.5): flagged / precision / recall |",
);
cutLines.push("|---|---|---|---|");
const cutText = (cs: Cut[]) =>
  `${f3(mean(cs.map((c) => c.flagged)))} / ${f3(mean(cs.map((c) => c.precision)))} / ${f3(mean(cs.map((c) => c.recall)))}`;
for (const b of benches) {
  const o = ours[b.name];
  cutLines.push(`| ${b.name} | ${cutText(o.isolation_forest.cut)} | ${cutText(o.blended.cut)} | ${cutText(ref.datasets[b.name])} |`);
}
let timeLines: string[] = [];
if (timed && ref.timing) {
  timeLines = [
    "| scoring 500k rows (best of 3) | ours iforest | sklearn score_samples | ratio ours / sklearn | ours blended |",
    "|---|---:|---:|---:|---:|",
    `| wall s | ${timed.oursWall.toFixed(2)} | ${ref.timing.wall_s.toFixed(2)} | ${(timed.oursWall / ref.timing.wall_s).toFixed(3)} | ${timed.blendedWall.toFixed(2)} |`,
    `| CPU s | ${timed.oursCpu.toFixed(2)} | ${ref.timing.cpu_s.toFixed(2)} | ${(timed.oursCpu / ref.timing.cpu_s).toFixed(3)} | ${timed.blendedCpu.toFixed(2)} |`,
  ];
}
const text = [
  `ROC-AUC on the evaluation rows, mean ± sd over seeds ${SEEDS.join(", ")} (both sides use each seed); ours ≥ sklearn on ${wins} of ${benches.length} datasets.`,
  "",
  ...lines,
  "",
  "Default cut on the evaluation rows (threshold learned on the fit rows), mean over seeds:",
  "",
  ...cutLines,
  "",
  ...timeLines,
  "",
  `scikit-learn ${ref.versions.sklearn}, numpy ${ref.versions.numpy}; node ${process.version}.`,
].join("\n");
console.log(`\n${text}`);
writeFileSync(`${TMP}/results.md`, `${text}\n`);
