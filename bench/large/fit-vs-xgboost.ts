/**
 * One prediction model on a large table (issue 30) against XGBoost hist on the same split, in one
 * run: fit CPU seconds (the figure a loaded machine does not inflate much), wall seconds, rounds
 * and the validation scores of both.
 *
 *   node_modules/node/bin/node --max-old-space-size=6144 --import tsx bench/large/fit-vs-xgboost.ts \
 *     --rows 2000000 [--threads 2] [--xgb-threads 2] [--configs '[{"label":"defaults","params":{}}]'] [--no-xgb] \
 *     [--engine '{"maxCatThreshold":64}'] [--json FILE]
 *
 * Ours: the frame /tmp/bench-large/mixed2_{N}_s13.frame (bench/large/train-memory.ts writes it)
 * loaded as the trainer loads it for a prediction model (columns widened as they are read), the
 * shared representation built once (cached beside the frame as .rep.json: a second model, as the
 * service trains it once the first has built it; a cache whose featurizer is not the one this
 * engine builds, e.g. from before the extra features of a category with more than 254 levels, is
 * left alone for the engine that wrote it and this engine's is cached as .rep.{hash}.json), then per candidate `trainPredictionModel` with
 * `search: "off"` and the candidate's params over the defaults (a candidate's `rep`: the stored
 * representation file to use instead, read as stored, unparsed: an older engine's, e.g. one whose
 * category kept 254 levels, stands for that engine in the same run), on `--threads` threads (a list:
 * each candidate on each; the trainer's GbdtThreads, 1 = none). Timed: the whole call (featurize,
 * split, bin, boost) and each stage; CPU = the process's user + system time over it (all its
 * threads).
 *
 * XGBoost (bench/large/fit_reference.py, Debian's 1.7.4): the CSV, the same validation rows as
 * ours (our stratified seeded split, written to a file), up to 500 rounds, early stopping after 30
 * rounds without a better validation log loss, its defaults otherwise (eta 0.3, depth 6),
 * `OMP_WAIT_POLICY=PASSIVE`, nthread per `--xgb-threads` (a list: one fit each). Its CPU: the fit's
 * (and the DMatrix + fit's).
 *
 * Prints one line per fit; --json FILE writes them all, ours with each round's validation loss.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { GbdtThreads } from "../../src/container/gbdt-threads";
import { decodeFrame } from "../../src/ingest/codec";
import { buildFeaturizer } from "../../src/ml/featurize";
import { findColumn } from "../../src/ml/frame";
import { DEFAULT_GBDT_PARAMS } from "../../src/ml/gbdt/train";
import { extractLabel } from "../../src/ml/label";
import { splitRows } from "../../src/ml/prediction/data";
import type { PredictionParams } from "../../src/ml/prediction/model";
import { trainPredictionModel } from "../../src/ml/prediction/train";
import { buildRepresentation, parseRepresentation, type Representation, serializeRepresentation } from "../../src/ml/representation/representation";

const argv = process.argv.slice(2);
const arg = (name: string, dflt: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const ROWS = Number(arg("--rows", "2000000"));
const DIR = arg("--dir", "/tmp/bench-large");
const LABEL = "label";
const threadList = arg("--threads", "2").split(",").map(Number);
const xgbThreads = arg("--xgb-threads", "2");
const configs: { label: string; params: PredictionParams; rep?: string }[] = JSON.parse(arg("--configs", '[{"label":"defaults","params":{}}]'));
// a diagnostic: engine parameters the prediction params do not expose (e.g. maxCatThreshold), set
// over DEFAULT_GBDT_PARAMS for every fit of this run
Object.assign(DEFAULT_GBDT_PARAMS, JSON.parse(arg("--engine", "{}")));
const FRAME = `${DIR}/mixed2_${ROWS}_s13.frame`;
const CSV = `${DIR}/mixed2_${ROWS}_s13.csv`;
const REP = `${FRAME}.rep.json`;

const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

const bytes = readFileSync(FRAME);
const frame = decodeFrame(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), { lazy: true });
const featurizer = JSON.stringify(buildFeaturizer(frame, { labelColumn: null }));
const cached = (file: string) => {
  const rep = existsSync(file) ? parseRepresentation(readFileSync(file, "utf8")) : null;
  return rep && JSON.stringify(rep.featurizer) === featurizer ? rep : null;
};
let representation = cached(REP);
if (!representation) {
  const own = `${FRAME}.rep.${createHash("sha1").update(featurizer).digest("hex").slice(0, 12)}.json`;
  representation = cached(own);
  if (!representation) {
    const t = performance.now();
    representation = buildRepresentation(frame, { seed: 0, encoder: false });
    writeFileSync(own, serializeRepresentation(representation));
    console.log(`representation built in ${((performance.now() - t) / 1000).toFixed(1)} s (cached: ${own})`);
  }
}

// our split (the one the model takes without an explicit split): XGBoost gets the same rows
const labelCol = findColumn(frame, LABEL);
if (!labelCol) throw new Error(`no column ${LABEL}`);
const lab = extractLabel(labelCol, frame.rowCount);
const { val } = splitRows(lab.rows, lab.y, 0.1, 0);
const valFile = `${DIR}/mixed2_${ROWS}_s13.val-rows.i32`;
writeFileSync(valFile, new Uint8Array(val.buffer, val.byteOffset, val.byteLength));

const results: object[] = [];
const json = arg("--json", "");
/** Rewritten after every fit, so that a stopped run keeps the fits it finished. */
const save = () => {
  if (json) writeFileSync(json, JSON.stringify({ rows: ROWS, results }, null, 1));
};
for (const threads of threadList) {
  const pool = threads > 1 ? new GbdtThreads(threads) : undefined;
  pool?.warm();
  for (const c of configs) {
    const rep = c.rep ? (JSON.parse(readFileSync(c.rep, "utf8")) as Representation) : representation;
    const l0 = load();
    const c0 = cpuSeconds();
    const t0 = performance.now();
    // CPU and wall seconds per stage (featurize, bin, boost)
    const stages: Record<string, { cpu_s: number; wall_s: number }> = {};
    let open: { stage: string; c: number; t: number } | null = null;
    const closeStage = () => {
      if (open) stages[open.stage] = { cpu_s: cpuSeconds() - open.c, wall_s: (performance.now() - open.t) / 1000 };
    };
    const res = trainPredictionModel(frame, {
      labelColumn: LABEL,
      representation: rep,
      params: { time_budget_s: 21_600, ...c.params, search: "off" },
      parallel: pool,
      // every 10th round's validation loss on stderr: a run stopped early still shows its curve
      onIteration: (info) => {
        if (info.iteration % 10 === 0)
          console.error(`${c.label}: round ${info.iteration} val_loss ${info.valLoss} cpu_s ${(cpuSeconds() - c0).toFixed(1)}`);
        return undefined;
      },
      onStage: (stage) => {
        closeStage();
        open = { stage, c: cpuSeconds(), t: performance.now() };
      },
    });
    closeStage();
    const wall = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds() - c0;
    const r = {
      side: "ours",
      label: c.label,
      params: c.params,
      rep: c.rep,
      threads,
      wall_s: wall,
      cpu_s: cpu,
      rounds: res.rounds,
      rounds_run: res.history.length,
      accuracy: res.metrics.accuracy,
      log_loss: res.metrics.log_loss,
      stages,
      load: `${l0} → ${load()}`,
    };
    // the per-round validation loss goes to --json only (where a schedule's curve is read)
    results.push({ ...r, val_losses: res.history.map((h) => h.valLoss) });
    save();
    console.log(JSON.stringify(r));
  }
  await pool?.close();
}

if (!argv.includes("--no-xgb")) {
  const l0 = load();
  const out = execFileSync(
    "/usr/bin/python3",
    ["bench/large/fit_reference.py", "--csv", CSV, "--label", LABEL, "--val-rows", valFile, "--nthread", xgbThreads],
    { env: { ...process.env, OMP_WAIT_POLICY: "PASSIVE" }, encoding: "utf8", maxBuffer: 1 << 24 },
  );
  for (const line of out.trim().split("\n")) {
    const r = { side: "xgboost", ...JSON.parse(line), load: `${l0} → ${load()}` };
    results.push(r);
    console.log(JSON.stringify(r));
  }
}
save();
