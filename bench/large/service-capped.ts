/**
 * Large tables through the service with the trainer sized and held to one instance's memory
 * (issue 30: "a 50 M-row table trains under `npm start` with the trainer limited to 6 GiB"; "CSV
 * ingest ≥ 50 MB/s end to end at 2 GB").
 *
 * The service starts as `npm start` does (test/e2e/service.ts), one trainer, with
 * TRAINER_MEMORY_MB (default 6144: a standard-2): the trainer's heap is TRAINER_HEAP_PERCENT of it
 * (`--max-old-space-size`, scripts/start.ts) and the cells it ingests follow it
 * (trainerMaxFrameCells). The memory itself is held by a watchdog, not a cgroup (this machine's
 * cgroups belong to its sandbox): the trainer's VmRSS is read every 100 ms and the trainer is
 * killed (SIGKILL, as the OOM killer would, and not restarted) the moment it passes the memory;
 * VmHWM, the kernel's exact peak, is reported too.
 *
 * For each --csv file in turn: signed upload (SDK `upload(…, { signed: true })`), the trainer's
 * ingest (MB/s = file bytes / the job's own seconds); then, on the last one, a prediction model
 * with `search: "off"`, `max_rounds` --rounds, timed from POST to succeeded.
 *
 * Run: npx tsx bench/large/service-capped.ts --csv A.csv [--csv B.csv …] [--memory-mb 6144] [--rounds 10]
 */
import { openAsBlob, readFileSync, statSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { TabularClient } from "tabular-ml-sdk";
import { startService } from "../../test/e2e/service";
import { Client, TERMINAL } from "../service/client";

const argv = process.argv.slice(2);
const arg = (name: string, dflt: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const CSVS = argv.flatMap((a, i) => (argv[i - 1] === "--csv" ? [a] : []));
const MEMORY_MB = Number(arg("--memory-mb", "6144"));
const ROUNDS = Number(arg("--rounds", "10"));
const MiB = 1024 * 1024;

function mem(pid: number): { rss: number; hwm: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0) * 1024;
    return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
  } catch {
    return null;
  }
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" / ");
console.log(
  `[capped] ${new Date().toISOString()} ${cpus().length} × ${cpus()[0]?.model}; load ${load()}; trainer memory ${MEMORY_MB} MiB; files ${CSVS.join(", ")}`,
);
const svc = await startService(180_000, { TRAINERS: "1", TRAINER_RESTART: "0", TRAINER_MEMORY_MB: String(MEMORY_MB) });
const pid = Number(/\[start\] trainer process started \(pid (\d+)\)/.exec(svc.output())?.[1]);
let windowPeak = 0;
let killed = "";
const watchdog = setInterval(() => {
  const m = mem(pid);
  if (!m || killed) return;
  windowPeak = Math.max(windowPeak, m.rss);
  if (m.rss > MEMORY_MB * MiB) {
    killed = `trainer killed at VmRSS ${(m.rss / MiB).toFixed(0)} MiB (over ${MEMORY_MB} MiB)`;
    process.kill(pid, "SIGKILL");
  }
}, 100);

const c = new Client(svc.base, svc.key);
const sdk = new TabularClient({ baseUrl: svc.base, apiKey: svc.key });
async function until(id: string, t0: number) {
  for (;;) {
    const job = (await c.call(`/jobs/${id}`)).body;
    if (TERMINAL.has(job.status) || killed || /Attempt \d+ failed/.test(job.error_message ?? "")) return { job, s: (performance.now() - t0) / 1000 };
    await new Promise((r) => setTimeout(r, 1000));
  }
}
const rows: string[] = [];
try {
  let datasetId = "";
  for (const path of CSVS) {
    windowPeak = 0;
    const bytes = statSync(path).size;
    const t0 = performance.now();
    const up = await sdk.upload(new File([await openAsBlob(path)], path.split("/").at(-1)!), {
      name: "capped",
      signed: true,
    });
    const uploadS = (performance.now() - t0) / 1000;
    const { job, s } = await until(up.jobId, performance.now());
    const o = job.output ?? {};
    const line = `| ingest ${path.split("/").at(-1)} (${(bytes / 1e6).toFixed(0)} MB) | ${job.status} | upload ${uploadS.toFixed(1)} s; job ${o.seconds ?? "–"} s (${o.seconds ? (bytes / 1e6 / o.seconds).toFixed(1) : "–"} MB/s), complete→done ${s.toFixed(1)} s | ${o.row_count ?? "–"} rows × ${o.column_count ?? "–"} | ${(windowPeak / MiB).toFixed(0)} MiB (trainer's own maxRSS ${o.peak_rss_mb ?? "–"} MB) | ${load()} |`;
    console.log(`[capped] ${line}${job.status === "succeeded" ? "" : ` ${killed || job.error_message}`}`);
    rows.push(line);
    if (job.status !== "succeeded") throw new Error(killed || job.error_message);
    datasetId = up.datasetId;
  }
  windowPeak = 0;
  const t0 = performance.now();
  const params = { search: "off", max_rounds: ROUNDS, early_stopping_rounds: ROUNDS, time_budget_s: 21_600 };
  const t = await c.json("/models/train", { model_name: "capped", model_type: "prediction", dataset_id: datasetId, label_column: "label", params });
  if (t.status >= 300) throw new Error(`POST /models/train: ${t.status} ${JSON.stringify(t.body)}`);
  const { job, s } = await until(t.body.job_id, t0);
  const o = job.output ?? {};
  const line = `| train (search off, max_rounds ${ROUNDS}) | ${job.status} | POST→${job.status} ${s.toFixed(1)} s; ${o.rounds_run ?? "–"} rounds; seconds ${JSON.stringify(o.seconds ?? {})} | metrics ${JSON.stringify(o.metrics ?? {})} | ${(windowPeak / MiB).toFixed(0)} MiB | ${load()} |`;
  console.log(`[capped] ${line}${job.status === "succeeded" ? "" : ` ${killed || job.error_message}`}`);
  rows.push(line);
} catch (e) {
  console.log(`[capped] stopped: ${(e as Error).message}`);
} finally {
  clearInterval(watchdog);
  const m = mem(pid);
  console.log(`[capped] trainer VmHWM over the run ${m ? (m.hwm / MiB).toFixed(0) : "– (gone)"} MiB; ${killed || "not killed"}`);
  console.log(
    svc
      .output()
      .split("\n")
      .filter((l) => /\[trainer\]|"component":"trainer"|rror|heap|exited/.test(l))
      .slice(-15)
      .join("\n"),
  );
  await svc.stop();
  console.log(["| step | status | time | result | trainer peak VmRSS (100 ms polls) | load |", "|---|---|---|---|---:|---|", ...rows].join("\n"));
}
