/**
 * Throughput under concurrency on the local service (issue 14): 16 clients, each with its own API
 * key (the rate limit is per key, as for 16 real clients), each sending one request after the
 * other for 30 s: one-row sync inference, then the same load on `GET /health`. Reports requests
 * per second, client p50/p99, errors, and CPU per request: the CPU time the workerd process
 * spent during the series (from /proc, user + system) over the requests it answered.
 * Writes bench/service/THROUGHPUT-RESULTS.md.
 * Run: npx tsx bench/service/throughput.ts [--seconds 30] [--clients 16]
 */
import { execSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { startService } from "../../test/e2e/service";
import { Client, type Stats, stats } from "./client";

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const SECONDS = arg("--seconds", 30);
const CLIENTS = arg("--clients", 16);
const TICKS = Number(execSync("getconf CLK_TCK").toString().trim());

const csv = (n: number) => {
  const lines = ["usage,plan,churned"];
  for (let i = 0; i < n; i++) lines.push(`${(i * 37) % 100},${["basic", "pro", "team"][i % 3]},${(i * 37) % 100 < 30 ? "yes" : "no"}`);
  return `${lines.join("\n")}\n`;
};

/** CPU ticks (user + system) of each of the service's workerd processes so far, by pid. */
function workerdTicks(pgid: number): Map<string, number> {
  const pids = execSync(`ps -o pid=,comm= -g ${pgid}`)
    .toString()
    .trim()
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter(([, comm]) => comm === "workerd")
    .map(([pid]) => pid);
  const ticks = new Map<string, number>();
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
      ticks.set(pid, Number(fields[11]) + Number(fields[12])); // utime, stime (fields 14 and 15 of stat)
    } catch {
      // exited meanwhile
    }
  }
  return ticks;
}

/** CPU seconds the workerd processes spent between two samples (a process born meanwhile counts from 0). */
function cpuSecondsBetween(before: Map<string, number>, after: Map<string, number>): number {
  let ticks = 0;
  for (const [pid, t] of after) ticks += t - (before.get(pid) ?? 0);
  return ticks / TICKS;
}

interface Series {
  ok: number;
  errors: Record<string, number>;
  rps: number;
  latency: Stats;
  cpuMsPerRequest: number;
}

async function load(pgid: number, send: (client: number) => Promise<number>): Promise<Series> {
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  const cpu0 = workerdTicks(pgid);
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      while (performance.now() < end) {
        const t = performance.now();
        const status = await send(client).catch(() => -1);
        if (status === 200) latencies.push(performance.now() - t);
        else errors[String(status)] = (errors[String(status)] ?? 0) + 1;
      }
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  const cpu = cpuSecondsBetween(cpu0, workerdTicks(pgid));
  const answered = latencies.length + Object.values(errors).reduce((a, b) => a + b, 0);
  return { ok: latencies.length, errors, rps: latencies.length / wall, latency: stats(latencies), cpuMsPerRequest: (cpu * 1000) / answered };
}

const svc = await startService();
try {
  const c = new Client(svc.base, svc.key);
  const up = await c.upload("/datasets", csv(2000), "churn.csv", { dataset_name: "throughput" });
  await c.untilDone(up.body.job_id, performance.now());
  const t = await c.json("/models/train", {
    model_name: "throughput",
    model_type: "prediction",
    dataset_id: up.body.dataset.id,
    label_column: "churned",
  });
  await c.untilDone(t.body.job_id, performance.now());
  const modelId = t.body.model.id;
  const keys: string[] = [];
  for (let i = 0; i < CLIENTS; i++) keys.push((await c.json("/api-keys", { name: `client ${i}` })).body.key);
  const infer = async (client: number) => {
    const form = new FormData();
    form.append("file", new File(["usage,plan\n42,pro\n"], "row.csv", { type: "text/csv" }));
    const res = await fetch(`${svc.base}/models/${modelId}/infer`, {
      method: "POST",
      body: form,
      headers: { Authorization: `Bearer ${keys[client]}` },
    });
    await res.arrayBuffer();
    return res.status;
  };
  const health = async () => {
    const res = await fetch(`${svc.base}/health`);
    await res.arrayBuffer();
    return res.status;
  };
  for (let i = 0; i < CLIENTS; i++) await infer(i); // every key's principal and the model warm
  const inference = await load(svc.pgid, infer);
  const bare = await load(svc.pgid, health);
  const commit = execSync("git rev-parse --short HEAD").toString().trim();
  const row = (name: string, s: Series) =>
    `| ${name} | ${s.rps.toFixed(1)} | ${s.latency.p50.toFixed(1)} | ${s.latency.p99.toFixed(1)} | ${
      Object.entries(s.errors)
        .map(([k, v]) => `${v} × ${k}`)
        .join(", ") || "none"
    } | ${s.cpuMsPerRequest.toFixed(2)} |`;
  const md = [
    "# Throughput: 16 concurrent clients (local service)",
    "",
    `Command: \`npx tsx bench/service/throughput.ts\` — ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, at commit ${commit}. ` +
      `Load average at the end: ${loadavg()
        .map((x) => x.toFixed(2))
        .join(" / ")} (2 shared cores: noisy).`,
    "",
    `${CLIENTS} clients, each with its own API key (the rate limit of 600 requests a minute is per key), each sending its next request when the last one was answered, for ${SECONDS} s per series; the service runs as \`npm start\` runs it. CPU per request: CPU time of the workerd process during the series (/proc user + system) over the requests answered: it includes the work inference leaves for after its response (the job record and its R2 files).`,
    "",
    "| series | requests/s | p50 ms | p99 ms | errors | workerd CPU ms / request |",
    "|---|---:|---:|---:|---|---:|",
    row("one-row POST /models/{id}/infer", inference),
    row("GET /health", bare),
    "",
    `Inference / health: ${(inference.rps / bare.rps).toFixed(2)}× the requests per second, ${(inference.latency.p50 / bare.latency.p50).toFixed(2)}× the p50, ${(inference.cpuMsPerRequest / bare.cpuMsPerRequest).toFixed(2)}× the CPU per request.`,
    "",
  ].join("\n");
  writeFileSync("bench/service/THROUGHPUT-RESULTS.md", md);
  console.log(md);
} finally {
  await svc.stop();
}
