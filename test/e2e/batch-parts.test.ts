/**
 * A batch inference over a large stored table on two trainer instances (`npm start` with two
 * trainers, as on a two-core machine): its rows are cut into parts run by both, and its results
 * are exactly those of the same batch on one trainer, where it is not cut. The same state (data,
 * model, API key) is served first with one trainer, then with two.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BATCH_SPLIT_MIN_ROWS } from "../../src/core/limits";
import { parseJobId } from "../../src/jobs/ids";
import { apiCall, isTerminal, jsonLogLines, pollUntil, type RunningService, SERVICE_START_MS, startService, table } from "./service";

const ROWS = BATCH_SPLIT_MIN_ROWS + 100_500;
const state = mkdtempSync(join(tmpdir(), "tabular-e2e-parts-"));
let svc: RunningService | undefined;
let modelId: string;
let datasetId: string;

const api = (path: string, init: RequestInit = {}) => apiCall(svc!, path, init);

async function upload(rows: number, name: string): Promise<string> {
  const form = new FormData();
  form.append("file", new File([table(rows)], `${name}.csv`, { type: "text/csv" }));
  form.append("dataset_name", name);
  const up = await api("/datasets", { method: "POST", body: form });
  expect(up.status, JSON.stringify(up.body)).toBe(201);
  const ingest = await pollUntil(svc!, "the ingest", async () => (await api(`/jobs/${up.body.job_id}`)).body, isTerminal, 180_000);
  expect(ingest.status, ingest.error_message).toBe("succeeded");
  return up.body.dataset.id;
}

/** The batch over the large table, run to its end: the job, its csv and parquet files, and JSON pages around the parts' edges. */
async function runBatch() {
  const run = await api(`/models/${modelId}/infer-batch`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ dataset_id: datasetId, output_type: "csv" }),
  });
  expect(run.status, JSON.stringify(run.body)).toBe(202);
  const job = await pollUntil(svc!, "the batch", async () => (await api(`/jobs/${run.body.id}`)).body, isTerminal, 300_000);
  expect(job.status, job.error_message).toBe("succeeded");
  const file = async (format: string) => {
    const res = await fetch(`${svc!.base}/jobs/${job.id}/results?format=${format}`, { headers: { Authorization: `Bearer ${svc!.key}` } });
    expect(res.status).toBe(200);
    return new Uint8Array(await res.arrayBuffer());
  };
  const pages = [];
  for (const cursor of [0, ROWS / 2 - 500, ROWS / 2 + 500, ROWS - 700]) {
    pages.push((await api(`/jobs/${job.id}/results?format=json&limit=1000&cursor=${Math.floor(cursor)}`)).body.data);
  }
  return { job, csv: await file("csv"), parquet: await file("parquet"), pages };
}

beforeAll(async () => {
  svc = await startService(SERVICE_START_MS, { TRAINERS: "1" }, process.cwd(), state);
  const small = await upload(3_000, "parts-train");
  const train = await api("/models/train", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ model_name: "parts", model_type: "prediction", dataset_id: small, label_column: "churned", params: { max_trials: 2 } }),
  });
  expect(train.status, JSON.stringify(train.body)).toBe(201);
  const trained = await pollUntil(svc, "the training", async () => (await api(`/jobs/${train.body.job_id}`)).body, isTerminal, 240_000);
  expect(trained.status, trained.error_message).toBe("succeeded");
  modelId = train.body.model.id;
  datasetId = await upload(ROWS, "parts-large");
}, 600_000);

afterAll(async () => {
  await svc?.stop();
  rmSync(state, { recursive: true, force: true });
});

describe("a large batch on two trainers", () => {
  it("is cut into parts run by both, and answers what one trainer answers", async () => {
    const one = await runBatch();
    await svc!.stop();
    svc = await startService(SERVICE_START_MS, { TRAINERS: "2" }, process.cwd(), state);
    const two = await runBatch();

    const parts = jsonLogLines(svc).filter((l) => l.component === "trainer" && l.job_id === parseJobId(two.job.id) && l.part !== undefined);
    expect(new Set(parts.map((l) => l.pid)).size).toBe(2);
    expect(one.job.output.rows).toBe(ROWS);
    const { seconds: _a, ...oneOutput } = one.job.output;
    const { seconds: _b, ...twoOutput } = two.job.output;
    expect(twoOutput).toEqual(oneOutput);
    expect(two.job.progress).toBe(100);
    expect(Buffer.from(two.csv).equals(Buffer.from(one.csv))).toBe(true);
    expect(Buffer.from(two.parquet).equals(Buffer.from(one.parquet))).toBe(true);
    expect(two.pages).toEqual(one.pages);
  }, 900_000);
});
