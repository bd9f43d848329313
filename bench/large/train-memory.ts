/**
 * The trainer's memory for one prediction model on a large table (issue 13), without the service:
 * the training job as the trainer runs it (src/container/run-training.ts with an in-memory
 * TrainingIO), peak RSS per stage.
 *
 * 1. Ingest, in a child process (the trainer's ingest job is another job): readCsv of
 *    /tmp/bench-large/mixed2_{N}_s13.csv (bench/large/run.ts writes it), encodeFrame, written to
 *    mixed2_{N}_s13.frame beside it (reused when present; --reingest to redo it).
 * 2. Training, in this process: loadFrame as the trainer's (ControlClient.io): the frame file
 *    served over HTTP from this process, fetched, its body read by bodyBytes into one buffer and
 *    decoded (a v1 frame's columns view that buffer; a v2 frame's encoded columns are widened into
 *    new arrays, see src/ingest/codec.ts); `--array-buffer`: read by `res.arrayBuffer()` instead (before),
 *    no cached representation (the first model on a dataset builds it: the ssl phase), the
 *    params of bench/large/run.ts (max_rounds 100, early_stopping_rounds 100, time_budget_s
 *    21600), label `label`.
 *
 * Per stage (RunOptions.onStage: load, representation, ssl, featurize, bin, boost, export) the
 * peak RSS is the kernel's VmHWM, reset at each stage start (`echo 5 > /proc/self/clear_refs`),
 * so it is exact, not polled. Also printed: RSS, V8 heap used and array buffers at each stage's
 * end, seconds, and the model's scores (to compare a change's results).
 *
 * Run it with the heap of the instance it stands for (TRAINER_HEAP_PERCENT of its memory: 4608 MiB
 * on a 6 GiB standard-2, the default):
 *   node_modules/node/bin/node --max-old-space-size=4608 --import tsx bench/large/train-memory.ts --rows 1000000
 * The frame is loaded as the runner asks for it: a prediction model's with its columns widened as
 * they are read (src/ingest/lazy-columns.ts); `--eager`: every column widened at load (before).
 * Options: --dir /tmp/bench-large, --rows N, --rounds N (max_rounds, default 100; the boost stage's
 * arrays are all allocated before its first round, so fewer rounds give the same peaks sooner),
 * --search off|auto (default off: one model, as these figures were measured before the model
 * search; auto: the service's default, a search of up to 40 trials), --reingest, --array-buffer,
 * --eager, --json (one JSON line at the end).
 */
import { spawnSync } from "node:child_process";
import { createReadStream, existsSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { bodyBytes } from "../../src/container/body-bytes";
import { type RunStage, runTraining } from "../../src/container/run-training";
import type { TrainingIO } from "../../src/container/training-io";
import type { TrainingTask } from "../../src/container/wire";
import { decodeFrame, encodeFrame } from "../../src/ingest/codec";
import { readCsv } from "../../src/ingest/csv";

const argv = process.argv.slice(2);
const arg = (name: string, dflt: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const ROWS = Number(arg("--rows", "1000000"));
/** One model ("off", as measured before the model search existed) or the default search ("auto": up to 40 trials). */
const SEARCH = arg("--search", "off") as "off" | "auto";
/** Boosting rounds (max_rounds): fewer for a memory-only run, whose boost stage allocates everything in its first round. */
const ROUNDS = Number(arg("--rounds", "100"));
const DIR = arg("--dir", "/tmp/bench-large");
const CSV = `${DIR}/mixed2_${ROWS}_s13.csv`;
const FRAME = `${DIR}/mixed2_${ROWS}_s13.frame`;
const MB = 1024 * 1024;

function status(): { hwm: number; rss: number } {
  const s = readFileSync("/proc/self/status", "utf8");
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0) * 1024;
  return { hwm: kb("VmHWM"), rss: kb("VmRSS") };
}

/** Resets VmHWM to the current RSS (Linux: "5" to clear_refs resets the peak RSS). */
function resetPeak(): void {
  writeFileSync("/proc/self/clear_refs", "5");
}

async function ingest(): Promise<void> {
  const t0 = performance.now();
  const bytes = readFileSync(CSV);
  // the trainer's ingest job reads as many cells as the task allows (no cap here)
  const { frame } = await readCsv(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), { maxCells: Infinity });
  const encoded = encodeFrame(frame);
  writeFileSync(`${FRAME}.part`, encoded);
  renameSync(`${FRAME}.part`, FRAME);
  const s = status();
  console.log(
    `[ingest] ${CSV}: ${frame.rowCount} rows, ${frame.columns.length} columns (${frame.columns.map((c) => `${c.name}:${c.kind}/${c.storage}`).join(", ")}); ` +
      `frame ${(encoded.length / MB).toFixed(0)} MiB, ${((performance.now() - t0) / 1000).toFixed(1)} s, peak RSS ${(s.hwm / MB).toFixed(0)} MiB`,
  );
}

interface StageRow {
  stage: RunStage;
  seconds: number;
  peakMiB: number;
  endRssMiB: number;
  heapUsedMiB: number;
  arrayBuffersMiB: number;
}

async function train(): Promise<void> {
  const rows: StageRow[] = [];
  let current: { stage: RunStage; t: number } | null = null;
  const close = () => {
    if (!current) return;
    const s = status();
    const m = process.memoryUsage();
    rows.push({
      stage: current.stage,
      seconds: (performance.now() - current.t) / 1000,
      peakMiB: s.hwm / MB,
      endRssMiB: s.rss / MB,
      heapUsedMiB: m.heapUsed / MB,
      arrayBuffersMiB: m.arrayBuffers / MB,
    });
  };
  const onStage = (stage: RunStage) => {
    close();
    resetPeak();
    current = { stage, t: performance.now() };
  };
  // the frame served over HTTP from this process (a file stream: 64 KiB at a time)
  const server = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": String(statSync(FRAME).size) });
    createReadStream(FRAME).pipe(res);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const frameUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/frame`;
  const before = status();
  resetPeak();
  const t0 = performance.now();
  let frameBytes = 0;
  const saved: Record<string, number> = {};
  const io: TrainingIO = {
    loadFrame: async (opts) => {
      // the trainer holds the downloaded body as one ArrayBuffer; decodeFrame views or widens it
      // as the trainer's ControlClient.io(): an HTTP GET, the body read by bodyBytes, decodeFrame
      // (the bytes are not kept here: the job may let go of the frame, and with it of them)
      const res = await fetch(frameUrl);
      const bytes = argv.includes("--array-buffer") ? new Uint8Array(await res.arrayBuffer()) : await bodyBytes(res);
      frameBytes = bytes.byteLength;
      return decodeFrame(bytes, argv.includes("--eager") ? {} : opts);
    },
    loadRepresentation: async () => null,
    saveRepresentation: async (json) => void (saved.representation = json.length),
    saveArtifact: async (file, bytes) => void (saved[file] = bytes.length),
    report: async () => {},
  };
  const task: TrainingTask = {
    model_name: "large",
    version_number: 1,
    model_type: "prediction",
    label_column: "label",
    input_columns: null,
    params: { max_rounds: ROUNDS, early_stopping_rounds: 100, time_budget_s: 21_600, search: SEARCH },
  };
  const out = await runTraining(task, io, { onStage });
  close();
  server.close();
  const total = (performance.now() - t0) / 1000;
  const peak = Math.max(...rows.map((r) => r.peakMiB));
  const lines = [
    `rows ${ROWS}, frame ${(frameBytes / MB).toFixed(0)} MiB; RSS before the job ${(before.rss / MB).toFixed(0)} MiB`,
    "",
    "| stage | seconds | peak RSS MiB | RSS at end | V8 heap used | array buffers |",
    "|---|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.stage} | ${r.seconds.toFixed(1)} | ${r.peakMiB.toFixed(0)} | ${r.endRssMiB.toFixed(0)} | ${r.heapUsedMiB.toFixed(0)} | ${r.arrayBuffersMiB.toFixed(0)} |`,
    ),
    `| **job** | ${total.toFixed(1)} | **${peak.toFixed(0)}** | | | |`,
    "",
    `peak ${((peak * MB) / ROWS).toFixed(0)} bytes a row; model: ${out.rounds_run} rounds (${out.stop_reason}), ${out.features} features, ` +
      `train/val ${(out.validation as { train_rows: number }).train_rows}/${(out.validation as { val_rows: number }).val_rows}, ` +
      `metrics ${JSON.stringify(out.metrics)}; artifacts ${JSON.stringify(saved)}; seconds ${JSON.stringify(out.seconds)}`,
  ];
  console.log(`rounds ${ROUNDS}, search ${SEARCH}${argv.includes("--eager") ? ", eager frame" : ""}`);
  console.log(lines.join("\n"));
  if (argv.includes("--json"))
    console.log(JSON.stringify({ rows: ROWS, stages: rows, peakMiB: peak, total, metrics: out.metrics, rounds: out.rounds_run }));
}

if (argv.includes("--ingest-only")) await ingest();
else {
  if (argv.includes("--reingest") || !existsSync(FRAME)) {
    // a child process, so that the ingest's memory is not counted in the training's
    const r = spawnSync(process.execPath, [...process.execArgv, process.argv[1], "--ingest-only", "--rows", String(ROWS), "--dir", DIR], {
      stdio: "inherit",
    });
    if (r.status !== 0) throw new Error(`ingest failed (status ${r.status}, signal ${r.signal})`);
  }
  await train();
}
