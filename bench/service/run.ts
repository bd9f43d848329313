/**
 * npm run bench:service [-- --quick] [--no-ref] [--no-write] [--no-ablation | --ablation]
 *
 * The local service measured over HTTP like a client: it is started as a user starts it
 * (test/e2e/service.ts → scripts/start.ts: wrangler dev + the trainer process, fresh state),
 * fertility (and diamonds) are uploaded, two prediction models are trained on the same dataset
 * version (the second reuses the representation the first built), and synchronous inference
 * latency is measured for 1 / 100 / 10,000 rows of fertility's test fold. References in the same
 * run: the same inference steps in this process on the model's own artifacts (no HTTP), and
 * XGBoost in-process (fit and predict, one thread). Then (not with --quick unless --ablation) the
 * ablation of bench/service/ablation.ts on a patched copy. Writes bench/SERVICE-RESULTS.md (not
 * with --quick or --no-write). --quick: fewer calls, fertility only. No assertion on any timing.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { type Ablation, runAblation } from "./ablation";
import { Client, type Stats, stats, type Timed } from "./client";
import { csvPath, DIAMONDS, FERTILITY, foldsPath, type Spec, testRowsCsv } from "./data";
import { Inproc, type InprocResult } from "./inproc";
import { report } from "./report";
import { type Service, start } from "./service";

const argv = process.argv.slice(2);
const quick = argv.includes("--quick");
const withRef = !argv.includes("--no-ref");
const write = !quick && !argv.includes("--no-write");
const withAblation = argv.includes("--ablation") || (!quick && !argv.includes("--no-ablation"));

export const plan = quick
  ? {
      datasets: [FERTILITY],
      warmup: 10,
      sizes: [1, 100, 10_000],
      calls: [100, 50, 10],
      baselineCalls: 50,
      pacedCalls: 30,
      pacedGapMs: 100,
      fitRepeats: 1,
      ablationRounds: 2,
      ablationPerRound: 20,
    }
  : {
      datasets: [FERTILITY, DIAMONDS],
      warmup: 20,
      sizes: [1, 100, 10_000],
      calls: [500, 200, 30],
      baselineCalls: 100,
      pacedCalls: 100,
      pacedGapMs: 100,
      fitRepeats: 3,
      ablationRounds: 5,
      ablationPerRound: 25,
    };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sh = (cmd: string) => {
  try {
    return execFileSync("sh", ["-c", cmd], { stdio: ["ignore", "pipe", "ignore"] })
      .toString()
      .trim();
  } catch {
    return "?";
  }
};
const pkg = (name: string) => JSON.parse(readFileSync(`node_modules/${name}/package.json`, "utf8")).version as string;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" / ");
const log = (...a: unknown[]) => console.log(...a);

export interface TrainRun {
  model: string;
  modelId: string;
  status: string;
  error: string | null;
  representation: string | null;
  /** started_at → finished_at of the job, s. */
  jobS: number | null;
  /** Client: POST /models/train → terminal status seen by polling (every 200 ms), s. */
  wallS: number;
  /** The trainer's own split (job.output.seconds). */
  seconds: Record<string, number> | null;
  rounds: number | null;
  stopReason: string | null;
  metric: string | null;
}

export interface DatasetRun {
  spec: Spec;
  rows: number | null;
  uploadMs: number;
  ingestJobS: number | null;
  ingestWallS: number;
  ingestStatus: string;
  datasetId: string;
  first: TrainRun;
  second: TrainRun;
}

export interface Series {
  label: string;
  client: Stats;
  server: Stats | null;
  bytes?: number;
  /** client p50 per consecutive block of 100 calls (drift over the series). */
  blocks?: number[];
}

export interface Results {
  quick: boolean;
  command: string;
  date: string;
  machine: { nproc: string; cpu: string; loadStart: string; loadBeforeInfer: string; loadEnd: string; mem: string };
  versions: Record<string, string>;
  commit: string;
  startS: number;
  datasets: DatasetRun[];
  cold: { clientMs: number; serverMs: number | null } | null;
  infer: { rows: number; calls: number; requestBytes: number; series: Series }[];
  baselines: Series[];
  paced: Series | null;
  inproc: { rows: number; result: InprocResult }[];
  ref: RefOut | null;
  refDiamonds: RefOut | null;
  refError: string | null;
  jobsRecorded: { expected: number; found: number } | null;
  ablation: Ablation | null;
  client: { sent: number; waits: number; waitedS: number; refused: number };
  anomalies: string[];
}

export interface RefOut {
  versions: Record<string, string>;
  fit: { rows: number; columns: number; rounds: number; best_s: number; all_s: number[] };
  predict: Record<string, { inplace: Stats; pandas: Stats; pandas_csv: Stats }>;
}

const iso = (s: string | null | undefined) => (s ? Date.parse(s) : NaN);
const durS = (job: any): number | null => {
  const d = (iso(job.finished_at) - iso(job.started_at)) / 1000;
  return Number.isFinite(d) ? d : null;
};

async function train(c: Client, spec: Spec, datasetId: string, name: string, anomalies: string[], expect: "built" | "reused"): Promise<TrainRun> {
  const t = performance.now();
  const r = await c.json("/models/train", { model_name: name, model_type: "prediction", dataset_id: datasetId, label_column: spec.target });
  if (r.status !== 201) throw new Error(`POST /models/train ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  const { job, wallS } = await c.untilDone(r.body.job_id, t);
  const out = job.output ?? {};
  const m = out.metrics ?? {};
  const metric = typeof m.accuracy === "number" ? `accuracy ${m.accuracy.toFixed(4)}` : typeof m.r2 === "number" ? `r2 ${m.r2.toFixed(4)}` : null;
  const run: TrainRun = {
    model: name,
    modelId: r.body.model.id,
    status: job.status,
    error: job.error_message ?? null,
    representation: out.representation ?? null,
    jobS: durS(job),
    wallS,
    seconds: out.seconds ?? null,
    rounds: out.rounds ?? null,
    stopReason: out.stop_reason ?? null,
    metric,
  };
  if (job.status !== "succeeded") anomalies.push(`${spec.name} ${name}: training job ${job.status}: ${job.error_message}`);
  if (run.representation !== expect)
    anomalies.push(`${spec.name} ${name}: job.output.representation is ${JSON.stringify(run.representation)}, expected "${expect}"`);
  log(
    `  ${name}: ${job.status}, representation ${run.representation}, job ${run.jobS?.toFixed(2)} s, wall ${wallS.toFixed(2)} s, ` +
      `seconds ${JSON.stringify(run.seconds)}, rounds ${run.rounds}, ${metric}`,
  );
  return run;
}

async function dataset(c: Client, spec: Spec, anomalies: string[]): Promise<DatasetRun> {
  log(`\n== ${spec.name}: upload, ingest, first and second model (target ${spec.target})`);
  const bytes = readFileSync(csvPath(spec));
  const t = performance.now();
  const up = await c.upload("/datasets", bytes, `${spec.name}.csv`, { dataset_name: `bench ${spec.name}` });
  if (up.status !== 201) throw new Error(`POST /datasets ${spec.name}: ${up.status} ${JSON.stringify(up.body)}`);
  const ing = await c.untilDone(up.body.job_id, t);
  if (ing.job.status !== "succeeded") throw new Error(`ingest of ${spec.name} ${ing.job.status}: ${ing.job.error_message}`);
  log(
    `  upload ${up.ms.toFixed(0)} ms, ingest job ${durS(ing.job)?.toFixed(2)} s, wall ${ing.wallS.toFixed(2)} s, ${ing.job.output?.row_count} rows`,
  );
  const datasetId = up.body.dataset.id;
  const first = await train(c, spec, datasetId, `${spec.name}-first`, anomalies, "built");
  const second = await train(c, spec, datasetId, `${spec.name}-second`, anomalies, "reused");
  return {
    spec,
    rows: ing.job.output?.row_count ?? null,
    uploadMs: up.ms,
    ingestJobS: durS(ing.job),
    ingestWallS: ing.wallS,
    ingestStatus: ing.job.status,
    datasetId,
    first,
    second,
  };
}

/** `warmup` untimed then `calls` timed sequential calls of `fn`; all of them fit in one rate-limit window. */
async function series(
  c: Client | null,
  label: string,
  warmup: number,
  calls: number,
  fn: () => Promise<{ ms: number; server?: number | null; bytes?: number }>,
  gapMs = 0,
): Promise<Series> {
  if (c) await c.reserve(warmup + calls);
  for (let i = 0; i < warmup; i++) await fn();
  const ms: number[] = [],
    srv: number[] = [];
  let bytes = 0;
  for (let i = 0; i < calls; i++) {
    if (gapMs) await sleep(gapMs);
    const r = await fn();
    ms.push(r.ms);
    if (typeof r.server === "number") srv.push(r.server);
    bytes = r.bytes ?? bytes;
  }
  const blocks: number[] = [];
  for (let i = 0; i + 100 <= ms.length; i += 100) blocks.push(stats(ms.slice(i, i + 100)).p50);
  const s: Series = { label, client: stats(ms), server: srv.length ? stats(srv) : null, bytes, blocks: blocks.length > 1 ? blocks : undefined };
  log(
    `  ${label}: client p50 ${s.client.p50.toFixed(2)} p99 ${s.client.p99.toFixed(2)} mean ${s.client.mean.toFixed(2)} ms` +
      (s.server ? `; server latency_ms p50 ${s.server.p50} p99 ${s.server.p99} mean ${s.server.mean.toFixed(2)}` : "") +
      (blocks.length > 1 ? `; p50 per 100 calls ${blocks.map((b) => b.toFixed(1)).join(", ")}` : ""),
  );
  return s;
}

function inferCall(c: Client, modelId: string, csv: string, rows: number, anomalies: string[]) {
  return async () => {
    const r = await c.upload(`/models/${modelId}/infer`, csv, "rows.csv", { output_type: "json" });
    if (r.status !== 200 || r.body?.data?.prediction?.length !== rows) {
      const msg = `infer ${rows} rows: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`;
      anomalies.push(msg);
      throw new Error(msg);
    }
    return { ms: r.ms, server: r.body.latency_ms as number, bytes: r.bytes };
  };
}

async function countInferJobs(c: Client, modelId: string): Promise<number> {
  let n = 0;
  let cursor: string | null = null;
  do {
    const r: Timed = await c.call(`/jobs?type=infer_sync&model_id=${modelId}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    if (r.status !== 200) throw new Error(`GET /jobs: ${r.status} ${JSON.stringify(r.body)}`);
    n += r.body.items.length;
    cursor = r.body.next_cursor;
  } while (cursor);
  return n;
}

function runReference(spec: Spec, withPredict: boolean): RefOut {
  const args = [
    "bench/service/reference.py",
    "--csv",
    csvPath(spec),
    "--folds",
    foldsPath(spec),
    "--target",
    spec.target,
    "--task",
    spec.task,
    "--fit-repeats",
    String(plan.fitRepeats),
  ];
  if (withPredict) args.push("--sizes", plan.sizes.join(","), "--calls", plan.calls.join(","), "--warmup", String(plan.warmup));
  const out = execFileSync("/usr/bin/python3", args, {
    env: { ...process.env, OMP_NUM_THREADS: "1" },
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 1 << 24,
  });
  return JSON.parse(out.toString());
}

async function main() {
  const anomalies: string[] = [];
  const res: Results = {
    quick,
    command: `npm run bench:service${argv.length ? ` -- ${argv.join(" ")}` : ""}`,
    date: `${new Date().toISOString().replace("T", " ").slice(0, 16)} UTC`,
    machine: {
      nproc: sh("nproc"),
      cpu: cpus()[0]?.model ?? "?",
      loadStart: load(),
      loadBeforeInfer: "",
      loadEnd: "",
      mem: sh('free -m | awk \'/Mem:/ {print $2" MB total, "$7" MB available"}\''),
    },
    versions: {
      node: process.version,
      wrangler: pkg("wrangler"),
      workerd: pkg("workerd"),
      "onnxruntime-web": pkg("onnxruntime-web"),
      hono: pkg("hono"),
    },
    commit:
      sh("git rev-parse --short HEAD") +
      (sh("git status --porcelain src scripts test/e2e") ? " + uncommitted changes in src/scripts (other work in progress)" : ""),
    startS: 0,
    datasets: [],
    cold: null,
    infer: [],
    baselines: [],
    paced: null,
    inproc: [],
    ref: null,
    refDiamonds: null,
    refError: null,
    jobsRecorded: null,
    ablation: null,
    client: { sent: 0, waits: 0, waitedS: 0, refused: 0 },
    anomalies,
  };
  log(`bench:service ${quick ? "(quick)" : ""} — ${res.machine.nproc} cores, load ${res.machine.loadStart}`);

  const t0 = performance.now();
  const svc: Service = await start();
  res.startS = (performance.now() - t0) / 1000;
  log(`service at ${svc.base} (started in ${res.startS.toFixed(1)} s)`);
  const c = new Client(svc.base, svc.key);
  let failure: unknown = null;
  try {
    for (const spec of plan.datasets) res.datasets.push(await dataset(c, spec, anomalies));
    const fert = res.datasets[0];
    const modelId = fert.first.modelId;

    log(`\n== synchronous inference, fertility model ${fert.first.model} (${modelId})`);
    res.machine.loadBeforeInfer = load();
    const files = plan.sizes.map((n) => testRowsCsv(FERTILITY, n).csv);
    // The first call after training: artifacts read from R2, ORT session created in the isolate.
    const cold = await inferCall(c, modelId, files[0], 1, anomalies)();
    res.cold = { clientMs: cold.ms, serverMs: cold.server };
    log(`  first call (cold): client ${cold.ms.toFixed(1)} ms, server latency_ms ${cold.server}`);
    for (let k = 0; k < plan.sizes.length; k++) {
      const s = await series(c, `infer ${plan.sizes[k]} rows`, plan.warmup, plan.calls[k], inferCall(c, modelId, files[k], plan.sizes[k], anomalies));
      res.infer.push({ rows: plan.sizes[k], calls: plan.calls[k], requestBytes: files[k].length, series: s });
    }

    log("\n== baselines (what the Worker path costs without inference)");
    const n = plan.baselineCalls;
    const noModel = crypto.randomUUID();
    const expectStatus = (want: number, p: Promise<{ status: number; ms: number; body: any }>) =>
      p.then((r) => {
        if (r.status !== want) anomalies.push(`baseline expected ${want}, got ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
        return { ms: r.ms };
      });
    res.baselines.push(await series(null, "GET /health (no auth)", 10, n, () => expectStatus(200, c.open("/health"))));
    res.baselines.push(await series(c, "GET /models/x (auth, then 404 before any query)", 10, n, () => expectStatus(404, c.call("/models/x"))));
    res.baselines.push(await series(c, "GET /models?limit=1 (auth + one list query)", 10, n, () => expectStatus(200, c.call("/models?limit=1"))));
    res.baselines.push(
      await series(c, "POST /models/{unknown}/infer, 1-row file (auth + multipart + model look-up → 404)", 10, n, () =>
        expectStatus(404, c.upload(`/models/${noModel}/infer`, files[0], "rows.csv", { output_type: "json" })),
      ),
    );
    res.paced = await series(
      c,
      `infer 1 row, ${plan.pacedGapMs} ms pause before each call`,
      10,
      plan.pacedCalls,
      inferCall(c, modelId, files[0], 1, anomalies),
      plan.pacedGapMs,
    );

    // Every inference call records an infer_sync job after its response (waitUntil).
    await sleep(2000);
    const expected = 1 + plan.sizes.reduce((a, _, k) => a + plan.warmup + plan.calls[k], 0) + 10 + plan.pacedCalls;
    res.jobsRecorded = { expected, found: await countInferJobs(c, modelId) };
    log(`  infer_sync jobs recorded for the model: ${res.jobsRecorded.found} of ${expected} calls`);
    if (res.jobsRecorded.found !== expected) anomalies.push(`infer_sync jobs recorded: ${res.jobsRecorded.found}, calls made: ${expected}`);

    log("\n== the same inference steps in this process (model artifacts downloaded; no HTTP)");
    const onnx = await fetch(`${svc.base}/models/${modelId}/versions/1/artifact`, { headers: { Authorization: `Bearer ${svc.key}` } });
    const feat = await fetch(`${svc.base}/models/${modelId}/versions/1/artifact?part=featurizer`, {
      headers: { Authorization: `Bearer ${svc.key}` },
    });
    if (!onnx.ok || !feat.ok) throw new Error(`artifact download: ${onnx.status} / ${feat.status}`);
    const inproc = await Inproc.create(new Uint8Array(await onnx.arrayBuffer()), await feat.text());
    for (let k = 0; k < plan.sizes.length; k++) {
      const r = await inproc.measure(files[k], plan.calls[k], plan.warmup);
      res.inproc.push({ rows: plan.sizes[k], result: r });
      log(
        `  ${plan.sizes[k]} rows: p50 ${r.total.p50.toFixed(3)} p99 ${r.total.p99.toFixed(3)} ms; steps p50 ${JSON.stringify(Object.fromEntries(Object.entries(r.steps).map(([a, b]) => [a, +b.toFixed(3)])))}`,
      );
    }
  } catch (e) {
    failure = e;
    console.error(e);
    console.error(`--- service output (tail) ---\n${svc.output().slice(-4000)}`);
  } finally {
    const left = await svc.shutdown();
    if (left.length)
      anomalies.push(`after stop(), ${left.length} process(es) of the service were still running (pids ${left.join(", ")}); killed by the benchmark`);
    res.client = { sent: c.sent, waits: c.waits, waitedS: c.waitedS, refused: c.refused };
    log(`service stopped; ${c.sent} authenticated requests, ${c.waits} rate-limit window waits (${c.waitedS.toFixed(0)} s), ${c.refused} × 429`);
  }
  if (failure) process.exit(1);

  if (withAblation) {
    log("\n== ablation on a patched copy of the service (job record on/off, time inside the Worker)");
    try {
      res.ablation = await runAblation({
        rounds: plan.ablationRounds,
        perRound: plan.ablationPerRound,
        warmup: 10,
        oneRowCsv: testRowsCsv(FERTILITY, 1).csv,
      });
      if (res.ablation.skipped) log(`  skipped: ${res.ablation.skipped}`);
      if (res.ablation.leftovers.length)
        anomalies.push(
          `ablation copy: ${res.ablation.leftovers.length} process(es) still running after stop() (pids ${res.ablation.leftovers.join(", ")}); killed by the benchmark`,
        );
    } catch (e) {
      res.ablation = {
        cells: [],
        rounds: plan.ablationRounds,
        perRound: plan.ablationPerRound,
        skipped: `failed: ${(e as Error).message.split("\n")[0]}`,
        leftovers: [],
      };
      console.warn(`ablation failed: ${(e as Error).message}`);
    }
  }

  if (withRef) {
    log("\n== XGBoost reference (in-process, one thread)");
    try {
      res.ref = runReference(FERTILITY, true);
      if (plan.datasets.includes(DIAMONDS)) res.refDiamonds = runReference(DIAMONDS, false);
      Object.assign(res.versions, res.ref.versions);
    } catch (e) {
      res.refError = (e as Error).message.split("\n")[0];
      console.warn(`reference failed: ${res.refError}`);
    }
  }
  res.machine.loadEnd = load();
  const md = report(res, plan);
  console.log(`\n${md}`);
  if (write) {
    writeFileSync("bench/SERVICE-RESULTS.md", md);
    log("wrote bench/SERVICE-RESULTS.md");
  }
}

await main();
