/**
 * npx tsx bench/unsupervised/first-second.ts [second-type, default anomaly] [--repeats 3]
 * "A second model on the same data is faster", through the local service like a client: a
 * 20,000-row slice of fertility is uploaded, a prediction model trains (it builds the dataset
 * version's shared representation: the ssl phase), then a model of another type trains on the
 * same version (it reuses the representation). Job run time = finished_at − started_at; the
 * trainer's own split comes from the job output. Each pass uploads a fresh version, so every
 * first model builds. Target (issue 10): second ≤ half of the first.
 */
import { readFileSync } from "node:fs";
import { startService } from "../../test/e2e/service";
import { BENCH_DATA_DIR } from "../../test/ml/helpers/bench-data";

const argv = process.argv.slice(2);
const secondType = argv.find((a) => !a.startsWith("--") && argv[argv.indexOf(a) - 1] !== "--repeats") ?? "anomaly";
const repeats = Number(argv[argv.indexOf("--repeats") + 1]) || 3;
const ROWS = 20_000;

const svc = await startService();
const api = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(svc.base + path, { ...init, headers: { Authorization: `Bearer ${svc.key}`, ...(init.headers ?? {}) } });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};
const until = async (path: string) => {
  for (;;) {
    const b = (await api(path)).body;
    if (["succeeded", "failed", "canceled"].includes(b?.status)) return b;
    await new Promise((r) => setTimeout(r, 100));
  }
};
const jobSeconds = (j: { started_at: string; finished_at: string }) => (Date.parse(j.finished_at) - Date.parse(j.started_at)) / 1000;

async function train(datasetId: string, modelType: string) {
  const body = {
    model_name: `${modelType}-bench`,
    model_type: modelType,
    dataset_id: datasetId,
    ...(modelType === "prediction" ? { label_column: "morekids" } : {}),
  };
  const r = await api("/models/train", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (r.status !== 201) throw new Error(JSON.stringify(r.body));
  const job = await until(`/jobs/${r.body.job_id}`);
  if (job.status !== "succeeded") throw new Error(`${modelType}: ${job.error_message}`);
  return job;
}

try {
  const lines = readFileSync(`${BENCH_DATA_DIR}/fertility.csv`, "utf8").split("\n");
  const csv = `${lines.slice(0, ROWS + 1).join("\n")}\n`;
  console.log(
    `| pass | first: prediction job s (representation) | trainer split load/ssl/fit/export s | second: ${secondType} job s (representation) | trainer split | second / first |`,
  );
  console.log("|---|---:|---|---:|---|---:|");
  const split = (s: Record<string, number>) => `${s.load} / ${s.ssl} / ${s.fit} / ${s.export}`;
  for (let pass = 1; pass <= repeats; pass++) {
    const form = new FormData();
    form.append("file", new File([csv], "fertility-20k.csv", { type: "text/csv" }));
    form.append("dataset_name", `fertility-20k-${pass}`);
    const up = await api("/datasets", { method: "POST", body: form });
    const ingest = await until(`/jobs/${up.body.job_id}`);
    if (ingest.status !== "succeeded") throw new Error(ingest.error_message);
    const first = await train(up.body.dataset.id, "prediction");
    const second = await train(up.body.dataset.id, secondType);
    const a = jobSeconds(first);
    const b = jobSeconds(second);
    console.log(
      `| ${pass} | ${a.toFixed(2)} (${first.output.representation}) | ${split(first.output.seconds)} | ${b.toFixed(2)} (${second.output.representation}) | ${split(second.output.seconds)} | ${(b / a).toFixed(2)} |`,
    );
  }
} finally {
  await svc.stop();
}
