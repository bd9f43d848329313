/**
 * Large tables through the local service (issue 13, item 4): a seeded CSV of mixed columns and
 * its Parquet form, uploaded by presigned URL, ingested by the trainer, then a prediction model
 * trained on it; beside it, in the same run and on the same files, DuckDB (read_csv /
 * read_parquet into a table), pandas (read_csv; read_parquet when an engine is installed) and
 * XGBoost `hist` single-thread, 100 rounds.
 *
 * Reports ingestion MB/s (file bytes / the ingest job's own duration), the trainer process's peak
 * RSS (VmHWM and polled VmRSS from /proc), training time, and what failed, with its message.
 * Appends a section to bench/large/RESULTS.md.
 *
 * Run: npx tsx bench/large/run.ts --rows 1000000 [--dir /tmp/bench-large] [--no-train] [--no-parquet]
 * `--generate-only`: write the CSV (for bench/large/train-memory.ts) and stop.
 * Generated files stay in --dir (reused when present with the same rows and seed).
 */
import { execFileSync, execSync } from "node:child_process";
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openAsBlob,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { performance } from "node:perf_hooks";
import { DuckDBInstance } from "@duckdb/node-api";
import { TabularClient } from "tabular-ml-sdk";
import { startService } from "../../test/e2e/service";
import { seededRandom } from "../../test/seeded-random";
import { Client, TERMINAL } from "../service/client";

const argv = process.argv.slice(2);
if (argv.includes("--help") || argv.includes("-h")) {
  // the file's opening comment is the usage
  console.log(
    readFileSync(new URL(import.meta.url), "utf8")
      .split("*/")[0]!
      .replace(/^\/\*\*\n| \* ?/gm, ""),
  );
  process.exit(0);
}
const arg = (name: string, dflt: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const ROWS = Number(arg("--rows", "1000000"));
const DIR = arg("--dir", "/tmp/bench-large");
const SEED = Number(arg("--seed", "13"));
const ROUNDS = Number(arg("--rounds", "100"));
const TRAIN = !argv.includes("--no-train");
/** --deadline HH:MM (UTC): stop waiting for a job then, and record it as unfinished. */
const DEADLINE = argv.includes("--deadline") ? Date.parse(`${new Date().toISOString().slice(0, 10)}T${arg("--deadline", "23:59")}:00Z`) : Infinity;
const PARQUET = !argv.includes("--no-parquet");
const PY = "/usr/bin/python3";
const MB = 1e6;

// ---------------------------------------------------------------- data

const HEADER = "amount,score,ratio,age,count,plan,region,channel,user,active,signup,label";
const PLANS = ["free", "basic", "pro", "team", "enterprise"];
const CHANNELS = ["web", "ios", "android", "partner", "email", "store", "phone", "other"];

/**
 * 12 columns: amount (float, 2 decimals), score (float, 7 decimals), ratio (float, 2 % missing),
 * age (integer, 1 % missing), count (integer up to 10^7: high cardinality), plan (5 values),
 * region (300 values, 1 % missing), channel (8 values), user (high cardinality: rows / 8 ids),
 * active (true/false), signup (date), label (yes/no, from the features plus noise).
 */
function generateCsv(path: string, rows: number, seed: number): void {
  const r = seededRandom(seed);
  const dates: string[] = [];
  const d0 = Date.UTC(2015, 0, 1);
  for (let i = 0; i < 3650; i++) dates.push(new Date(d0 + i * 86_400_000).toISOString().slice(0, 10));
  const regionEffect = Array.from({ length: 300 }, () => r() - 0.5);
  const users = Math.max(1, Math.floor(rows / 8));
  const tmp = `${path}.part`;
  const fd = openSync(tmp, "w");
  writeSync(fd, `${HEADER}\n`);
  const CHUNK = 50_000;
  for (let start = 0; start < rows; start += CHUNK) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(rows, start + CHUNK); i++) {
      const u1 = r() || 1e-12;
      const score = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * r());
      const amount = Math.exp(3 + 1.5 * r() + r());
      const ratio = r();
      const ratioMissing = r() < 0.02;
      const age = 18 + Math.floor(r() * 73);
      const ageMissing = r() < 0.01;
      const count = Math.floor(r() * 10_000_000);
      const plan = Math.floor(r() * r() * 5);
      const region = Math.floor(r() * 300);
      const regionMissing = r() < 0.01;
      const channel = Math.floor(r() * 8);
      const user = Math.floor(r() * users);
      const active = r() < 0.6;
      const day = Math.floor(r() * 3650);
      const logit =
        1.2 * score +
        0.5 * plan -
        1 +
        (ageMissing ? 0 : -0.03 * (age - 50)) +
        (ratioMissing ? 0 : 2 * (ratio - 0.5)) +
        (active ? 0.6 : -0.3) +
        2 * regionEffect[region] +
        0.3 * Math.log(amount / 100) +
        (day / 3650 - 0.5);
      const label = r() < 1 / (1 + Math.exp(-logit)) ? "yes" : "no";
      lines.push(
        `${amount.toFixed(2)},${score.toFixed(7)},${ratioMissing ? "" : ratio.toFixed(4)},${ageMissing ? "" : age},${count},${PLANS[plan]},${
          regionMissing ? "" : `region_${region}`
        },${CHANNELS[channel]},user_${String(user).padStart(8, "0")},${active},${dates[day]},${label}`,
      );
    }
    writeSync(fd, `${lines.join("\n")}\n`);
  }
  closeSync(fd);
  renameSync(tmp, path);
}

// ---------------------------------------------------------------- trainer memory

interface Mem {
  pid: number;
  vmHwmMb: number;
  vmRssMb: number;
}
function readMem(pid: number): Mem | null {
  try {
    const s = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0);
    return { pid, vmHwmMb: kb("VmHWM") / 1024, vmRssMb: kb("VmRSS") / 1024 };
  } catch {
    return null;
  }
}

/** Polls the trainer (the last pid announced in the service's output) every 200 ms. */
class TrainerWatch {
  peakRssMb = 0;
  peakHwmMb = 0;
  pids = new Set<number>();
  private timer: NodeJS.Timeout;
  constructor(private readonly output: () => string) {
    this.timer = setInterval(() => this.sample(), 200);
  }
  pid(): number {
    const all = [...this.output().matchAll(/\[start\] trainer process started \(pid (\d+)\)/g)];
    return Number(all.at(-1)?.[1] ?? 0);
  }
  sample(): Mem | null {
    const pid = this.pid();
    if (!pid) return null;
    this.pids.add(pid);
    const m = readMem(pid);
    if (m) {
      this.peakRssMb = Math.max(this.peakRssMb, m.vmRssMb);
      this.peakHwmMb = Math.max(this.peakHwmMb, m.vmHwmMb);
    }
    return m;
  }
  /** Starts a new window (the peaks of one phase). */
  reset(): void {
    this.peakRssMb = 0;
    this.sample();
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

// ---------------------------------------------------------------- service

interface ServiceIngest {
  format: string;
  status: string;
  error?: string;
  jobSeconds?: number;
  wallSeconds: number;
  uploadSeconds: number;
  rows?: number;
  trainerReportedPeakMb?: number;
  peakRssMb: number;
  peakHwmMb: number;
  datasetId?: string;
}

interface ServiceTrain {
  status: string;
  error?: string;
  wallSeconds: number;
  seconds?: Record<string, number>;
  rounds?: number;
  stopReason?: string;
  trainRows?: number;
  valRows?: number;
  metrics?: unknown;
  peakRssMb: number;
  peakHwmMb: number;
}

/**
 * Polls a job until it is terminal, or until an attempt has failed: the service retries a failed
 * attempt (3 in all, with a delay), and the failures seen here are deterministic, so the first
 * failed attempt's message is the finding (status "attempt_failed").
 */
async function untilDoneOrFailedAttempt(c: Watched, id: string, since: number, everyMs: number): Promise<{ job: any; wallS: number }> {
  const watch = c.watch;
  watch.sample();
  const pidsBefore = watch.pids.size;
  for (;;) {
    const r = await c.call(`/jobs/${id}`);
    if (r.status !== 200) throw new Error(`GET /jobs/${id}: ${r.status} ${JSON.stringify(r.body)}`);
    const job = r.body;
    const wallS = (performance.now() - since) / 1000;
    if (TERMINAL.has(job.status)) return { job, wallS };
    if (/Attempt \d+ failed/.test(job.error_message ?? "")) return { job: { ...job, status: "attempt_failed" }, wallS };
    if (watch.pids.size > pidsBefore) {
      const why = c.lastTrainerExit() ?? "the trainer process was started again";
      return { job: { ...job, status: "trainer_died", error_message: `${why} (job ${job.status}, progress ${job.progress})` }, wallS };
    }
    if (Date.now() > DEADLINE)
      return {
        job: { ...job, status: "unfinished", error_message: `still ${job.status} at progress ${job.progress} when the bench's --deadline came` },
        wallS,
      };
    await new Promise((res) => setTimeout(res, everyMs));
  }
}

/** The client with the trainer's watch (a new trainer pid during a job means the trainer died). */
interface Watched extends Client {
  watch: TrainerWatch;
  lastTrainerExit(): string | undefined;
}

const jobError = (job: any) => String(job.error_message ?? JSON.stringify(job.output ?? job)).slice(0, 600);

async function ingestThroughService(sdk: TabularClient, c: Watched, watch: TrainerWatch, path: string, format: string): Promise<ServiceIngest> {
  watch.reset();
  const t0 = performance.now();
  const name = path.split("/").at(-1)!;
  const up = await sdk.upload(new File([await openAsBlob(path)], name), { name: `large-${format}`, signed: true });
  const uploadSeconds = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  const { job, wallS } = await untilDoneOrFailedAttempt(c, up.jobId, t1, 1000);
  watch.sample();
  const r: ServiceIngest = {
    format,
    status: job.status,
    wallSeconds: wallS,
    uploadSeconds,
    peakRssMb: watch.peakRssMb,
    peakHwmMb: watch.peakHwmMb,
    datasetId: up.datasetId,
  };
  if (job.status === "succeeded") {
    r.jobSeconds = job.output?.seconds;
    r.rows = job.output?.row_count;
    r.trainerReportedPeakMb = job.output?.peak_rss_mb;
  } else r.error = jobError(job);
  console.log(`[bench] ingest ${format}: ${JSON.stringify(r)}`);
  return r;
}

async function trainThroughService(c: Watched, watch: TrainerWatch, datasetId: string): Promise<ServiceTrain> {
  watch.reset();
  const t0 = performance.now();
  const t = await c.json("/models/train", {
    model_name: "large",
    model_type: "prediction",
    dataset_id: datasetId,
    label_column: "label",
    params: { max_rounds: ROUNDS, early_stopping_rounds: ROUNDS, time_budget_s: 21_600 },
  });
  if (t.status >= 300) return { status: `HTTP ${t.status}`, error: JSON.stringify(t.body), wallSeconds: 0, peakRssMb: 0, peakHwmMb: 0 };
  const { job, wallS } = await untilDoneOrFailedAttempt(c, t.body.job_id, t0, 2000);
  watch.sample();
  const r: ServiceTrain = { status: job.status, wallSeconds: wallS, peakRssMb: watch.peakRssMb, peakHwmMb: watch.peakHwmMb };
  if (job.status === "succeeded") {
    const o = job.output ?? {};
    r.seconds = o.seconds;
    r.rounds = o.rounds_run ?? o.rounds;
    r.stopReason = o.stop_reason;
    r.trainRows = o.validation?.train_rows ?? o.train_rows;
    r.valRows = o.validation?.val_rows ?? o.val_rows;
    r.metrics = o.metrics ?? o.validation?.metrics;
    console.log(`[bench] training output: ${JSON.stringify(o).slice(0, 2000)}`);
  } else r.error = jobError(job);
  console.log(`[bench] train: ${JSON.stringify(r)}`);
  return r;
}

// ---------------------------------------------------------------- references

async function duckdb(path: string, fn: "read_csv" | "read_parquet", threads: number): Promise<{ s: number; rows: number }> {
  const db = await DuckDBInstance.create(":memory:", { threads: String(threads) });
  const con = await db.connect();
  const t = performance.now();
  await con.run(`CREATE TABLE t AS SELECT * FROM ${fn}('${path}')`);
  const s = (performance.now() - t) / 1000;
  const rows = Number((await con.runAndReadAll("SELECT count(*) FROM t")).getRows()[0][0]);
  con.closeSync();
  db.closeSync();
  return { s, rows };
}

async function toParquet(csv: string, parquet: string): Promise<void> {
  const db = await DuckDBInstance.create(":memory:");
  const con = await db.connect();
  await con.run(`COPY (SELECT * FROM read_csv('${csv}')) TO '${parquet}.part' (FORMAT parquet, COMPRESSION snappy)`);
  con.closeSync();
  db.closeSync();
  renameSync(`${parquet}.part`, parquet);
}

// ---------------------------------------------------------------- run

mkdirSync(DIR, { recursive: true });
const csvPath = `${DIR}/mixed2_${ROWS}_s${SEED}.csv`;
const parquetPath = `${DIR}/mixed2_${ROWS}_s${SEED}.parquet`;
if (!existsSync(csvPath)) {
  const t = performance.now();
  generateCsv(csvPath, ROWS, SEED);
  console.log(`[bench] generated ${csvPath} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}
if (argv.includes("--generate-only")) process.exit(0);
if (PARQUET && !existsSync(parquetPath)) await toParquet(csvPath, parquetPath);
const csvBytes = statSync(csvPath).size;
const parquetBytes = PARQUET ? statSync(parquetPath).size : 0;
console.log(`[bench] CSV ${(csvBytes / MB).toFixed(1)} MB, Parquet ${(parquetBytes / MB).toFixed(1)} MB, ${ROWS} rows`);

const started = new Date();
const load0 = loadavg();
const svc = await startService();
const watch = new TrainerWatch(svc.output);
const ingests: ServiceIngest[] = [];
let train: ServiceTrain | null = null;
const failures: string[] = [];
try {
  const c = Object.assign(new Client(svc.base, svc.key), {
    watch,
    lastTrainerExit: () =>
      svc
        .output()
        .split("\n")
        .filter((l) => /trainer exited|heap out of memory|FATAL ERROR/.test(l))
        .slice(-3)
        .join(" | ") || undefined,
  }) as Watched;
  const sdk = new TabularClient({ baseUrl: svc.base, apiKey: svc.key });
  const ingest = async (path: string, format: string) => {
    try {
      ingests.push(await ingestThroughService(sdk, c, watch, path, format));
    } catch (e) {
      const msg = (e as Error).message;
      failures.push(`ingest ${format}: ${msg}`);
      ingests.push({ format, status: "error", error: msg, wallSeconds: 0, uploadSeconds: 0, peakRssMb: watch.peakRssMb, peakHwmMb: watch.peakHwmMb });
    }
  };
  // CSV, training on it, then Parquet (so that a slow Parquet ingest cannot delay the training)
  await ingest(csvPath, "csv");
  const csvIngest = ingests.find((i) => i.format === "csv" && i.status === "succeeded");
  if (TRAIN && csvIngest?.datasetId) {
    try {
      train = await trainThroughService(c, watch, csvIngest.datasetId);
    } catch (e) {
      failures.push(`training: ${(e as Error).message}`);
    }
  }
  if (PARQUET && Date.now() < DEADLINE) await ingest(parquetPath, "parquet");
} finally {
  watch.stop();
  const trainerLog = svc
    .output()
    .split("\n")
    .filter((l) => /\[trainer\]|\[start\]|rror|heap|Killed|exited/.test(l))
    .slice(-40)
    .join("\n");
  console.log(`[bench] trainer log (last lines):\n${trainerLog}`);
  writeFileSync(`${DIR}/service-${ROWS}.log`, svc.output());
  console.log(`[bench] the service's whole output: ${DIR}/service-${ROWS}.log`);
  if (/heap out of memory|exited \(code/.test(trainerLog))
    failures.push(
      `trainer log: ${trainerLog
        .split("\n")
        .filter((l) => /heap|exited|failed/.test(l))
        .slice(-5)
        .join(" | ")}`,
    );
  await svc.stop();
}

// references, after the service has stopped (nothing else running)
const duck = {
  csv2: await duckdb(csvPath, "read_csv", 2),
  csv1: await duckdb(csvPath, "read_csv", 1),
  pq2: PARQUET ? await duckdb(parquetPath, "read_parquet", 2) : null,
  pq1: PARQUET ? await duckdb(parquetPath, "read_parquet", 1) : null,
};
console.log(`[bench] duckdb: ${JSON.stringify(duck)}`);
const trainFrac = train?.trainRows && train.valRows ? train.trainRows / (train.trainRows + train.valRows) : 0.9;
const pyArgs = ["bench/large/reference.py", "--csv", csvPath, "--train-frac", String(trainFrac), "--rounds", String(ROUNDS)];
if (PARQUET) pyArgs.push("--parquet", parquetPath);
if (!TRAIN || Date.now() > DEADLINE) pyArgs.push("--no-xgb");
if (TRAIN && Date.now() > DEADLINE) failures.push("XGBoost reference not run: the bench's --deadline had passed");
let py: any = {};
try {
  py = JSON.parse(
    execFileSync(PY, pyArgs, { maxBuffer: 1 << 20 })
      .toString()
      .trim()
      .split("\n")
      .at(-1)!,
  );
} catch (e) {
  failures.push(`python reference: ${(e as Error).message.slice(0, 400)}`);
}
console.log(`[bench] python: ${JSON.stringify(py)}`);

// ---------------------------------------------------------------- report

const f = (x: number | undefined, d = 1) => (x === undefined || !Number.isFinite(x) ? "–" : x.toFixed(d));
const rate = (bytes: number, s: number | undefined) => (s ? bytes / MB / s : undefined);
const commit = execSync("git rev-parse --short HEAD").toString().trim();
const load1 = loadavg();
const ing = (fmt: string) => ingests.find((i) => i.format === fmt);
const lines: string[] = [];
lines.push(
  `## ${ROWS.toLocaleString("en")} rows × 12 columns — CSV ${f(csvBytes / MB)} MB, Parquet (DuckDB-written, Snappy) ${f(parquetBytes / MB)} MB`,
  "",
  `Command: \`npx tsx bench/large/run.ts --rows ${ROWS}${TRAIN ? "" : " --no-train"}${PARQUET ? "" : " --no-parquet"}\` — ${started
    .toISOString()
    .slice(0, 16)
    .replace(
      "T",
      " ",
    )} UTC, commit ${commit}; machine: ${cpus().length} cores (${cpus()[0]?.model}), ${f(totalmem() / 2 ** 30, 0)} GiB RAM; load average before ${load0
    .map((x) => x.toFixed(2))
    .join(
      " / ",
    )}, after ${load1.map((x) => x.toFixed(2)).join(" / ")}. Service first (references not running), then the references one after the other.`,
  "",
  "| ingestion | seconds | MB/s | rows | vs DuckDB 1 thread | vs DuckDB 2 threads | vs pandas |",
  "|---|---:|---:|---:|---:|---:|---:|",
);
for (const fmt of ["csv", "parquet"]) {
  const i = ing(fmt);
  if (!i) continue;
  const bytes = fmt === "csv" ? csvBytes : parquetBytes;
  const d1 = fmt === "csv" ? duck.csv1.s : duck.pq1?.s;
  const d2 = fmt === "csv" ? duck.csv2.s : duck.pq2?.s;
  const pd = fmt === "csv" ? py.read_csv_s : py.read_parquet_s;
  if (i.status === "succeeded") {
    lines.push(
      `| service ${fmt} (ingest job, trainer) | ${f(i.jobSeconds)} | ${f(rate(bytes, i.jobSeconds))} | ${i.rows?.toLocaleString("en")} | ${f(
        i.jobSeconds! / d1!,
        2,
      )}× the time | ${f(i.jobSeconds! / d2!, 2)}× | ${pd ? `${f(i.jobSeconds! / pd, 2)}×` : "–"} |`,
    );
  } else lines.push(`| service ${fmt} | **${i.status}** | – | – | – | – | – |`);
  lines.push(`| DuckDB ${fmt === "csv" ? "read_csv" : "read_parquet"} → table, 1 thread | ${f(d1, 2)} | ${f(rate(bytes, d1))} | | | | |`);
  lines.push(`| DuckDB ${fmt === "csv" ? "read_csv" : "read_parquet"} → table, 2 threads | ${f(d2, 2)} | ${f(rate(bytes, d2))} | | | | |`);
  if (fmt === "csv")
    lines.push(
      `| pandas read_csv (C engine) | ${f(py.read_csv_s, 2)} | ${f(rate(bytes, py.read_csv_s))} | ${py.rows?.toLocaleString("en") ?? "–"} | | | |`,
    );
  else
    lines.push(
      `| pandas read_parquet | ${py.read_parquet_s ? f(py.read_parquet_s, 2) : `not run: ${py.read_parquet_error ?? "–"}`} | ${f(rate(bytes, py.read_parquet_s))} | | | | |`,
    );
}
lines.push("");
for (const i of ingests) {
  lines.push(
    `- ${i.format}: upload (presigned PUT + complete) ${f(i.uploadSeconds)} s; from complete to the job's end (client polling, 1 s) ${f(i.wallSeconds)} s; trainer peak RSS during it ${f(
      i.peakRssMb,
      0,
    )} MB polled (VmHWM ${f(i.peakHwmMb, 0)} MB; the job's own maxRSS ${i.trainerReportedPeakMb ?? "–"} MB)${i.error ? `; **error**: \`${i.error}\`` : ""}`,
  );
}
if (TRAIN) {
  lines.push("", "| training (prediction, binary label) | seconds | vs XGBoost hist nthread=1 fit |", "|---|---:|---:|");
  if (train?.status === "succeeded") {
    const s = train.seconds ?? {};
    lines.push(
      `| service job, total (load + ssl + fit + export) | ${f(s.total)} | ${f(s.total / py.xgb_fit_s, 2)}× |`,
      `| service, boosting only (fit) | ${f(s.fit)} | ${f(s.fit / py.xgb_fit_s, 2)}× |`,
      `| XGBoost ${py.versions?.xgboost ?? ""} hist, nthread=1, ${ROUNDS} rounds (DMatrix built before: ${f(py.dmatrix_s)} s) | ${f(py.xgb_fit_s)} | 1 |`,
      "",
      `- service seconds: ${JSON.stringify(train.seconds)}; boosting rounds run ${train.rounds ?? "–"} (stop: ${train.stopReason ?? "–"}); train/val rows ${train.trainRows ?? "–"}/${train.valRows ?? "–"}; metrics ${JSON.stringify(train.metrics)}; XGBoost on ${py.xgb_train_rows ?? "–"} random rows, val accuracy ${f(py.xgb_val_accuracy, 4)}.`,
      `- trainer peak RSS during training: ${f(train.peakRssMb, 0)} MB polled, VmHWM ${f(train.peakHwmMb, 0)} MB (since the process started).`,
    );
  } else {
    lines.push(`| service | **${train?.status ?? "not run"}** | – |`, `| XGBoost hist nthread=1 | ${f(py.xgb_fit_s)} | 1 |`, "");
    if (train)
      lines.push(`- training error: \`${train.error}\`; trainer peak RSS ${f(train.peakRssMb, 0)} MB polled, VmHWM ${f(train.peakHwmMb, 0)} MB.`);
  }
}
lines.push(`- pandas read_csv peak RSS ${f(py.read_csv_peak_rss_mb, 0)} MB; trainer pids seen: ${[...watch.pids].join(", ")}.`);
if (failures.length) lines.push("", "Failures:", ...failures.map((x) => `- \`${x.replaceAll("`", "'")}\``));
lines.push("");
const md = lines.join("\n");
const out = "bench/large/RESULTS.md";
if (!existsSync(out)) appendFileSync(out, "# Large tables through the local service (issue 13)\n\n");
appendFileSync(out, `${md}\n`);
console.log(md);
