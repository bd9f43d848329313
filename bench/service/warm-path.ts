/**
 * Edge speed on the local service (issue 14): warm one-row sync inference against an
 * authenticated `GET /datasets?limit=1` and `GET /health`, in alternating blocks in the same run
 * (150 sequential calls each, after 20 warm-up rounds), plus the first inference after the model
 * became ready. Writes bench/service/WARM-PATH-RESULTS.md.
 * Run: npx tsx bench/service/warm-path.ts [--calls N] (default 150: the issue's protocol; a p99 of
 * 150 calls is their second-slowest, so more calls give a steadier tail)
 */
import { execSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { startService } from "../../test/e2e/service";
import { Client, stats } from "./client";

const callsArg = process.argv.indexOf("--calls");
const CALLS = callsArg > 0 ? Number(process.argv[callsArg + 1]) : 150;
const BLOCK = 10;
const rowsCsv = (n: number) => {
  const lines = ["usage,plan,churned"];
  for (let i = 0; i < n; i++) lines.push(`${(i * 37) % 100},${["basic", "pro", "team"][i % 3]},${(i * 37) % 100 < 30 ? "yes" : "no"}`);
  return `${lines.join("\n")}\n`;
};

const svc = await startService();
try {
  const c = new Client(svc.base, svc.key);
  const up = await c.upload("/datasets", rowsCsv(2000), "churn.csv", { dataset_name: "warm" });
  await c.untilDone(up.body.job_id, performance.now());
  const t = await c.json("/models/train", { model_name: "warm", model_type: "prediction", dataset_id: up.body.dataset.id, label_column: "churned" });
  await c.untilDone(t.body.job_id, performance.now());
  const modelId = t.body.model.id;
  const infer = () => {
    const form = new FormData();
    form.append("file", new File(["usage,plan\n42,pro\n"], "row.csv", { type: "text/csv" }));
    return c.call(`/models/${modelId}/infer`, { method: "POST", body: form });
  };
  const first = await infer();
  const series = { health: [] as number[], datasets: [] as number[], infer: [] as number[], server: [] as number[] };
  for (let i = 0; i < 20; i++) {
    await c.open("/health");
    await c.call("/datasets?limit=1");
    await infer();
  }
  // Blocks of BLOCK calls of each kind in turn: work a request leaves behind (inference writes its
  // job record after responding) lands on the next calls of its own kind, not on the others'.
  for (let i = 0; i < CALLS; i += BLOCK) {
    for (let k = 0; k < BLOCK; k++) series.health.push((await c.open("/health")).ms);
    for (let k = 0; k < BLOCK; k++) series.datasets.push((await c.call("/datasets?limit=1")).ms);
    for (let k = 0; k < BLOCK; k++) {
      const r = await infer();
      if (r.status !== 200) throw new Error(`inference answered ${r.status}: ${JSON.stringify(r.body)}`);
      series.infer.push(r.ms);
      series.server.push(r.body.latency_ms);
    }
  }
  const h = stats(series.health);
  const d = stats(series.datasets);
  const f = stats(series.infer);
  const ms = (x: number) => x.toFixed(2);
  const commit = execSync("git rev-parse --short HEAD").toString().trim();
  const md = [
    "# Warm path: one-row sync inference against a bare authenticated request (local service)",
    "",
    `Command: \`npx tsx bench/service/warm-path.ts${CALLS === 150 ? "" : ` --calls ${CALLS}`}\` — ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, at commit ${commit}. ` +
      `Load average at the end: ${loadavg()
        .map((x) => x.toFixed(2))
        .join(" / ")} (2 shared cores: noisy).`,
    "",
    `The service runs as \`npm start\` runs it (wrangler dev + trainer). ${CALLS} calls of each kind after 20 warm-up rounds, sequential, in ` +
      `alternating blocks of ${BLOCK} (\`GET /health\`, \`GET /datasets?limit=1\`, one-row \`POST /models/{id}/infer\`), so the series share the same ` +
      "moments and the work an inference leaves behind (its job record, written after the response) is paid by the next inference. Client time includes reading the body.",
    "",
    "| request | p50 ms | p99 ms | mean ms |",
    "|---|---:|---:|---:|",
    `| GET /health (no auth) | ${ms(h.p50)} | ${ms(h.p99)} | ${ms(h.mean)} |`,
    `| GET /datasets?limit=1 (auth + one D1 query) | ${ms(d.p50)} | ${ms(d.p99)} | ${ms(d.mean)} |`,
    `| POST /models/{id}/infer, one row | ${ms(f.p50)} | ${ms(f.p99)} | ${ms(f.mean)} |`,
    "",
    `- Inference p50 / datasets p50: **${(f.p50 / d.p50).toFixed(2)}×** (target ≤ 1); inference p99 / datasets p50: **${(f.p99 / d.p50).toFixed(2)}×** (target ≤ 2); for scale, datasets p99 / datasets p50: ${(d.p99 / d.p50).toFixed(2)}×.`,
    `- Inference p50 / health p50: ${(f.p50 / h.p50).toFixed(2)}×. Server-reported \`latency_ms\` p50 ${stats(series.server).p50} ms.`,
    `- First inference after the model became ready (artifact fetch, session creation): ${ms(first.ms)} ms (target ≤ 150).`,
    "",
  ].join("\n");
  writeFileSync("bench/service/WARM-PATH-RESULTS.md", md);
  console.log(md);
} finally {
  await svc.stop();
}
