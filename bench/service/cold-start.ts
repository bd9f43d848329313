/**
 * Cold start on the local service (issue 14): where the first inference's time goes. Trains two
 * models, then times, in one fresh service: the first inference of model A (the isolate's first
 * ONNX session: ort's wasm backend comes up), A again (warm), the first inference of model B
 * (backend up, B's artifacts and session not yet), B again. Repeated over `--runs` fresh services.
 * Writes bench/service/COLD-START-RESULTS.md.
 * Run: npx tsx bench/service/cold-start.ts [--runs 3]
 */
import { execSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { startService } from "../../test/e2e/service";
import { Client } from "./client";

const runs = Number(process.argv[process.argv.indexOf("--runs") + 1] || 3);
const csv = (n: number) => {
  const lines = ["usage,plan,churned"];
  for (let i = 0; i < n; i++) lines.push(`${(i * 37) % 100},${["basic", "pro", "team"][i % 3]},${(i * 37) % 100 < 30 ? "yes" : "no"}`);
  return `${lines.join("\n")}\n`;
};

const rows: Record<string, number[]> = { firstA: [], warmA: [], firstB: [], warmB: [] };
for (let r = 0; r < runs; r++) {
  const svc = await startService();
  try {
    const c = new Client(svc.base, svc.key);
    const up = await c.upload("/datasets", csv(2000), "churn.csv", { dataset_name: "cold" });
    await c.untilDone(up.body.job_id, performance.now());
    const train = async (name: string) => {
      const t = await c.json("/models/train", {
        model_name: name,
        model_type: "prediction",
        dataset_id: up.body.dataset.id,
        label_column: "churned",
      });
      await c.untilDone(t.body.job_id, performance.now());
      return t.body.model.id as string;
    };
    const [a, b] = [await train("a"), await train("b")];
    const infer = async (id: string) => {
      const form = new FormData();
      form.append("file", new File(["usage,plan\n42,pro\n"], "row.csv", { type: "text/csv" }));
      const res = await c.call(`/models/${id}/infer`, { method: "POST", body: form });
      if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
      return res.ms;
    };
    rows.firstA.push(await infer(a));
    rows.warmA.push(await infer(a));
    rows.firstB.push(await infer(b));
    rows.warmB.push(await infer(b));
  } finally {
    await svc.stop();
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const label: Record<string, string> = {
  firstA: "first inference of model A (the isolate's first model)",
  warmA: "A again",
  firstB: "first inference of model B (another model, same isolate)",
  warmB: "B again",
};
const commit = execSync("git rev-parse --short HEAD").toString().trim();
const md = [
  "# Cold start: the first inference after a model became ready (local service)",
  "",
  `Command: \`npx tsx bench/service/cold-start.ts --runs ${runs}\` — ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, at commit ${commit}. ` +
    `Load average at the end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" / ")} (2 shared cores: noisy).`,
  "",
  `Each run starts a fresh service (\`npm start\`), uploads a 2,000-row table, trains two prediction models A and B, then times four one-row sync inferences (client round trip, ms). Target: first inference ≤ 150 ms.`,
  "",
  `| call | ${rows.firstA.map((_, i) => `run ${i + 1}`).join(" | ")} | median |`,
  `|---|${rows.firstA.map(() => "---:|").join("")}---:|`,
  ...Object.entries(rows).map(([k, v]) => `| ${label[k]} | ${v.map((x) => x.toFixed(1)).join(" | ")} | ${median(v).toFixed(1)} |`),
  "",
].join("\n");
writeFileSync("bench/service/COLD-START-RESULTS.md", md);
console.log(md);
