/**
 * Read your own writes (issue 31): warm one-row sync inference on this checkout against other
 * checkouts of the service (e.g. main), side by side in the same run, and what a client gets when
 * it asks for the answer's job at once (GET /jobs/{id} right after the answer).
 *
 * Each checkout runs as `npm start` runs it, all at the same time; each trains the same small
 * model. Then, after 20 warm-up calls each, CALLS one-row inferences each, sequential, in
 * alternating blocks of 10 (so the series share the same moments of a noisy machine), then ROUNDS
 * rounds each of: infer, then GET /jobs/{job_id} at once.
 * Writes bench/service/READ-YOUR-WRITES-RESULTS.md.
 * Run: npx tsx bench/service/read-your-writes.ts --compare main=<checkout of main> [--compare name=<dir> …] [--calls 200]
 */
import { execSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { type RunningService, startService, table } from "../../test/e2e/service";
import { Client } from "./client";

const arg = (name: string) => process.argv.flatMap((a, i) => (a === name ? [process.argv[i + 1]] : []));
const CALLS = Number(arg("--calls")[0] ?? 200);
const ROUNDS = 50;
const BLOCK = 10;
const checkouts = [
  { name: "this branch", dir: process.cwd() },
  ...arg("--compare").map((c) => ({ name: c.slice(0, c.indexOf("=")), dir: c.slice(c.indexOf("=") + 1) })),
];

const quantile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
};

interface Target {
  name: string;
  dir: string;
  commit: string;
  svc: RunningService;
  client: Client;
  modelId: string;
  infer: number[];
  reads: { status: number; ms: number }[];
}

async function prepare(name: string, dir: string): Promise<Target> {
  const svc = await startService(180_000, {}, dir);
  try {
    return await trained(name, dir, svc);
  } catch (e) {
    await svc.stop();
    throw e;
  }
}

async function trained(name: string, dir: string, svc: RunningService): Promise<Target> {
  const client = new Client(svc.base, svc.key);
  const up = await client.upload("/datasets", table(2000), "churn.csv", { dataset_name: "ryw" });
  await client.untilDone(up.body.job_id, performance.now());
  const t = await client.json("/models/train", {
    model_name: "ryw",
    model_type: "prediction",
    dataset_id: up.body.dataset.id,
    label_column: "churned",
  });
  await client.untilDone(t.body.job_id, performance.now());
  const commit = execSync("git rev-parse --short HEAD", { cwd: dir }).toString().trim();
  return { name, dir, commit, svc, client, modelId: t.body.model.id, infer: [], reads: [] };
}

function infer(t: Target) {
  const form = new FormData();
  form.append("file", new File(["usage,plan\n42,pro\n"], "row.csv", { type: "text/csv" }));
  return t.client.call(`/models/${t.modelId}/infer`, { method: "POST", body: form });
}

async function inferOk(t: Target) {
  const r = await infer(t);
  if (r.status !== 200) throw new Error(`${t.name}: inference answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r;
}

const targets: Target[] = [];
try {
  // one after another: two trainings at once on 2 cores would only slow both
  for (const c of checkouts) targets.push(await prepare(c.name, c.dir));
  for (let i = 0; i < 20; i++) for (const t of targets) await inferOk(t);
  for (let i = 0; i < CALLS; i += BLOCK) {
    for (const t of targets) for (let k = 0; k < BLOCK; k++) t.infer.push((await inferOk(t)).ms);
  }
  for (let i = 0; i < ROUNDS; i++) {
    for (const t of targets) {
      const answer = await inferOk(t);
      const read = await t.client.call(`/jobs/${answer.body.job_id}`);
      t.reads.push({ status: read.status, ms: read.ms });
    }
  }
  const ms = (x: number) => x.toFixed(2);
  const md = [
    "# Read your own writes: warm sync inference, and its job read at once (local service)",
    "",
    `Command: \`npx tsx bench/service/read-your-writes.ts ${process.argv.slice(2).join(" ")}\` — ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC. ` +
      `Load average at the end: ${loadavg()
        .map((x) => x.toFixed(2))
        .join(" / ")} (2 shared cores, shared with other work: noisy).`,
    "",
    `Each checkout runs as \`npm start\` runs it, all at once. ${CALLS} one-row \`POST /models/{id}/infer\` calls each after 20 warm-up calls, ` +
      `sequential, in alternating blocks of ${BLOCK}; then ${ROUNDS} rounds each of an inference followed at once by \`GET /jobs/{job_id}\`. Client time includes reading the body.`,
    "",
    "| checkout | commit | infer p50 ms | infer p95 ms | infer mean ms | GET at once: 200s | GET at once p50 ms | GET at once p95 ms |",
    "|---|---|---:|---:|---:|---:|---:|---:|",
    ...targets.map((t) => {
      const ok = t.reads.filter((r) => r.status === 200).map((r) => r.ms);
      const others = [...new Set(t.reads.filter((r) => r.status !== 200).map((r) => r.status))];
      const mean = t.infer.reduce((a, b) => a + b, 0) / t.infer.length;
      return (
        `| ${t.name} | ${t.commit} | ${ms(quantile(t.infer, 0.5))} | ${ms(quantile(t.infer, 0.95))} | ${ms(mean)} | ` +
        `${ok.length}/${t.reads.length}${others.length ? ` (others: ${others.join(", ")})` : ""} | ` +
        `${ok.length ? ms(quantile(ok, 0.5)) : "–"} | ${ok.length ? ms(quantile(ok, 0.95)) : "–"} |`
      );
    }),
    "",
  ].join("\n");
  writeFileSync("bench/service/READ-YOUR-WRITES-RESULTS.md", md);
  console.log(md);
} finally {
  for (const t of targets) await t.svc.stop();
}
