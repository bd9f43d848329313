/**
 * The model search on 1, 2 and 4 trainer instances (issue 29, "Parallelism"): the same tables and
 * time budget through the service (`npm start` with TRAINERS=n, so the trials go through the job's
 * Durable Object, the queue and the trainer processes), and 1 instance with 3× the budget. The
 * goal: 4 instances at budget B reach at least the out-of-fold loss 1 instance reaches at 3B.
 *
 *   npx tsx bench/search/instances.ts [--budget S] [--tables a,b] [--write]
 *
 * Each run uploads each whole table (cross-validated search: tables under 20,000 rows) and trains
 * a prediction model with `time_budget_s` and no trial cap; what is compared is the served model's
 * out-of-fold loss (the ensemble's, else the best trial's), the trials run and the wall time.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { startService } from "../../test/e2e/service";

const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const BUDGET_S = Number(arg("budget") ?? 20);
const TABLES: Record<string, string> = { credit_data: "Status", nmes1988: "visits", satellite: "classes" };
const tables = (arg("tables")?.split(",") ?? Object.keys(TABLES)).filter((t) => TABLES[t]);

interface Run {
  table: string;
  instances: number;
  budget: number;
  loss: number;
  trials: number;
  completed: number;
  usedInstances: number;
  stop: string;
  seconds: number;
}

async function runAll(trainers: number, budgets: number[]): Promise<Run[]> {
  const svc = await startService(300_000, { TRAINERS: String(trainers) });
  const api = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(svc.base + path, { ...init, headers: { Authorization: `Bearer ${svc.key}`, ...(init.headers ?? {}) } });
    return res.json() as Promise<any>;
  };
  const wait = async (jobId: string) => {
    for (;;) {
      const j = await api(`/jobs/${jobId}`);
      if (["succeeded", "failed", "canceled"].includes(j.status)) return j;
      await new Promise((r) => setTimeout(r, 500));
    }
  };
  const out: Run[] = [];
  try {
    for (const table of tables) {
      const form = new FormData();
      form.append("file", new File([readFileSync(`bench/search/data/${table}.csv`)], `${table}.csv`, { type: "text/csv" }));
      form.append("dataset_name", table);
      const up = await api("/datasets", { method: "POST", body: form });
      if ((await wait(up.job_id)).status !== "succeeded") throw new Error(`${table}: ingest failed`);
      // a first model builds the shared representation, so that the timed ones only search
      const warm = await api("/models/train", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          model_name: "warm",
          model_type: "prediction",
          dataset_id: up.dataset.id,
          label_column: TABLES[table],
          params: { search: "off" },
        }),
      });
      await wait(warm.job_id);
      for (const budget of budgets) {
        const t0 = Date.now();
        const res = await api("/models/train", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({
            model_name: `${table}-${trainers}-${budget}`,
            model_type: "prediction",
            dataset_id: up.dataset.id,
            label_column: TABLES[table],
            params: { time_budget_s: budget, max_trials: 1000 },
          }),
        });
        const job = await wait(res.job_id);
        if (job.status !== "succeeded") throw new Error(`${table}: ${job.error_message}`);
        const s = job.output.search;
        const best = s.trials.find((t: any) => t.trial === s.best);
        const run: Run = {
          table,
          instances: trainers,
          budget,
          loss: s.ensemble?.loss ?? best.score,
          trials: s.trials.length,
          completed: s.trials.filter((t: any) => t.status === "completed").length,
          usedInstances: s.instances,
          stop: s.stop_reason,
          seconds: (Date.now() - t0) / 1000,
        };
        console.log(JSON.stringify(run));
        out.push(run);
      }
    }
  } finally {
    await svc.stop();
  }
  return out;
}

const load = loadavg()[0];
const runs = [...(await runAll(1, [BUDGET_S, 3 * BUDGET_S])), ...(await runAll(2, [BUDGET_S])), ...(await runAll(4, [BUDGET_S]))];
const f4 = (v: number) => v.toFixed(4);
const lines = ["| table | 1 inst, B | 1 inst, 3B | 2 inst, B | 4 inst, B | 4 inst B ≤ 1 inst 3B? |", "|---|---|---|---|---|---|"];
for (const table of tables) {
  const at = (n: number, b: number) => runs.find((r) => r.table === table && r.instances === n && r.budget === b)!;
  const cell = (r: Run) => `${f4(r.loss)} (${r.completed}/${r.trials} trials, ${r.usedInstances} inst, ${r.stop}, ${r.seconds.toFixed(0)} s)`;
  const [a, b, c, d] = [at(1, BUDGET_S), at(1, 3 * BUDGET_S), at(2, BUDGET_S), at(4, BUDGET_S)];
  lines.push(`| ${table} | ${cell(a)} | ${cell(b)} | ${cell(c)} | ${cell(d)} | ${d.loss <= b.loss + 1e-9 ? "yes" : "no"} |`);
}
const report = [
  `B = ${BUDGET_S} s; ${availableParallelism()} cores; load average ${load.toFixed(1)} at the start. Loss: the served model's out-of-fold loss (log-loss or RMSE; lower is better).`,
  "",
  ...lines,
  "",
].join("\n");
console.log(report);
if (args.includes("--write"))
  writeFileSync(
    "bench/search/INSTANCES.md",
    `# The search on 1, 2 and 4 trainer instances\n\n\`npx tsx bench/search/instances.ts --budget ${BUDGET_S} --write\`\n\n${report}`,
  );
