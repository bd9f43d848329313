/**
 * Async inference: POST /models/{id}/infer-async → an infer_batch job in the queue → its results
 * with GET /jobs/{id}/results (JSON pages, csv, parquet); the states where there are none.
 */
import { parquetReadObjects } from "hyparquet";
import { beforeAll, describe, expect, it } from "vitest";
import { call, json, newOrg, type TestOrg } from "./helpers";
import { churnCsv, inferForm, jobEnd, readyDataset, trainAndWait } from "./model-helpers";

let org: TestOrg;
let modelId: string;
let datasetId: string;

beforeAll(async () => {
  org = await newOrg();
  const ds = await readyDataset(org, churnCsv(), "async");
  datasetId = ds.id;
  const t = await trainAndWait(org, { dataset_id: ds.id, label_column: "churned", params: { max_rounds: 20 } }, 90_000);
  expect(t.job.status, t.job.error_message).toBe("succeeded");
  modelId = t.started.model.id;
}, 150_000);

/** n rows to predict, with ids r0..r(n-1). */
function rows(n: number): string {
  const lines = ["id,usage,plan,region"];
  for (let i = 0; i < n; i++) lines.push(`r${i},${(i * 13) % 100},${["basic", "pro", "team"][i % 3]},north`);
  return `${lines.join("\n")}\n`;
}

const startAsync = (csv: string, fields: Record<string, string> = {}, id = modelId) =>
  call(`/models/${id}/infer-async`, { method: "POST", headers: org.auth, body: inferForm(csv, fields) }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as any,
  }));
const results = (jobId: string, query = "") => call(`/jobs/${jobId}/results${query}`, { headers: org.auth });

describe("infer-async", () => {
  it("answers 202 with the queued infer_batch job; it succeeds with the row count, columns and sizes", async () => {
    const r = await startAsync(rows(30));
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body).toMatchObject({ type: "infer_batch", input_filename: "rows.csv", model_id: modelId });
    expect(["queued", "running", "succeeded"]).toContain(r.body.status);
    expect(r.body.resources).toMatchObject({ type: "infer_batch", dataset: null });
    const job = await jobEnd(org, r.body.id);
    expect(job.status, job.error_message).toBe("succeeded");
    expect(job.progress).toBe(100);
    expect(job.output).toMatchObject({ rows: 30, columns: ["id", "prediction", "prediction_prob", "prob_no", "prob_yes"], output_type: "json" });
    expect(job.output.bytes.csv).toBeGreaterThan(0);
    expect(job.output.bytes.parquet).toBeGreaterThan(0);
  });

  it("results in JSON are the sync answer, page by page", async () => {
    const csv = rows(2500);
    const job = await jobEnd(org, (await startAsync(csv)).body.id);
    expect(job.status, job.error_message).toBe("succeeded");
    const sync = (await (await call(`/models/${modelId}/infer`, { method: "POST", headers: org.auth, body: inferForm(csv) })).json()) as any;
    const seen: Record<string, unknown[]> = {};
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await results(job.id, `?format=json&limit=700${cursor ? `&cursor=${cursor}` : ""}`);
      expect(r.status).toBe(200);
      const page = (await r.json()) as any;
      expect(page.total_rows).toBe(2500);
      for (const [k, v] of Object.entries(page.data)) seen[k] = [...(seen[k] ?? []), ...(v as unknown[])];
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(4);
    expect(seen).toEqual(sync.data);
  });

  it("results as csv and parquet: the whole file", async () => {
    const job = await jobEnd(org, (await startAsync(rows(5), { output_type: "csv" })).body.id);
    const csv = await results(job.id);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("Content-Type")).toMatch(/text\/csv/);
    const lines = (await csv.text()).trim().split(/\r?\n/);
    expect(lines[0]).toBe("id,prediction,prediction_prob,prob_no,prob_yes");
    expect(lines).toHaveLength(6);
    const pq = await results(job.id, "?format=parquet");
    expect(pq.status).toBe(200);
    const objects = await parquetReadObjects({ file: await pq.arrayBuffer() });
    expect(objects.map((o: any) => o.id)).toEqual(["r0", "r1", "r2", "r3", "r4"]);
  });

  it("a file with no rows the model can read fails the job with a clear message, and retry makes a new job", async () => {
    const r = await startAsync("usage,plan\n");
    expect(r.status).toBe(202);
    const job = await jobEnd(org, r.body.id);
    expect(job.status).toBe("failed");
    expect(job.error_message).toMatch(/^Could not read 'rows.csv': The file has a header row \(2 columns\) but no data rows/);
    const res = await results(job.id);
    expect(res.status).toBe(409);
    expect(((await res.json()) as any).detail).toMatch(/failed/);
    const retry = await json<any>(`/jobs/${job.id}/retry`, org, { method: "POST" });
    expect(retry.status).toBe(201);
    const again = await jobEnd(org, retry.body.job_id);
    expect(again.status).toBe("failed");
    expect(again.input_filename).toBe("rows.csv");
  });

  it("refuses what sync inference refuses: not multipart, unknown model, unknown version", async () => {
    const notForm = await call(`/models/${modelId}/infer-async`, {
      method: "POST",
      headers: { ...org.auth, "Content-Type": "application/json" },
      body: "{}",
    });
    expect(notForm.status).toBe(415);
    expect((await startAsync(rows(2), {}, crypto.randomUUID())).status).toBe(404);
    const version = await startAsync(rows(2), { model_version_id: crypto.randomUUID() });
    expect(version.status).toBe(422);
    expect(version.body.detail[0].loc).toEqual(["body", "model_version_id"]);
  });
});

describe("GET /jobs/{id}/results", () => {
  it("a sync inference job's results are stored too: the same rows, in every format", async () => {
    const sync = await call(`/models/${modelId}/infer`, { method: "POST", headers: org.auth, body: inferForm(rows(3), { output_type: "csv" }) });
    const csvAnswer = await sync.text();
    const syncJob = sync.headers.get("X-Job-Id")!;
    await expect.poll(async () => (await json(`/jobs/${syncJob}`, org)).status).toBe(200);
    const job = (await json<any>(`/jobs/${syncJob}`, org)).body;
    expect(job.output).toMatchObject({ rows: 3, output_type: "csv", columns: ["id", "prediction", "prediction_prob", "prob_no", "prob_yes"] });
    const r = await results(syncJob);
    expect(r.status).toBe(200);
    expect(await r.text()).toBe(csvAnswer);
    const page = (await (await results(syncJob, "?format=json")).json()) as any;
    expect(page.data.id).toEqual(["r0", "r1", "r2"]);
    // parquet was not stored (the answer was csv): encoded from the pages on request
    const pq = await results(syncJob, "?format=parquet");
    expect(pq.status).toBe(200);
    expect(((await parquetReadObjects({ file: await pq.arrayBuffer() })) as any[]).map((o) => o.id)).toEqual(["r0", "r1", "r2"]);

    // a JSON answer keeps only its pages; its csv is the csv answer of the same rows
    const asJson = await call(`/models/${modelId}/infer`, { method: "POST", headers: org.auth, body: inferForm(rows(3)) });
    const jsonJob = ((await asJson.json()) as any).job_id;
    await expect.poll(async () => (await json(`/jobs/${jsonJob}`, org)).status).toBe(200);
    expect((await json<any>(`/jobs/${jsonJob}`, org)).body.output.bytes).toEqual({});
    expect(await (await results(jsonJob, "?format=csv")).text()).toBe(csvAnswer);
  });

  it("409 for a job that is not an inference job, 404 for an unknown job, 422 for a bad cursor or limit", async () => {
    const train = (await json<any>(`/jobs?type=train`, org)).body.items[0];
    const r = await results(train.id);
    expect(r.status).toBe(409);
    expect(((await r.json()) as any).detail).toMatch(/train job/);
    expect((await results(crypto.randomUUID())).status).toBe(404);
    const job = await jobEnd(org, (await startAsync(rows(3))).body.id);
    const bad = await results(job.id, "?cursor=abc");
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as any).detail[0].loc).toEqual(["query", "cursor"]);
    expect((await results(job.id, "?limit=5000")).status).toBe(422);
  });

  it("another organization's job is a 404", async () => {
    const job = await jobEnd(org, (await startAsync(rows(3))).body.id);
    const other = await newOrg();
    const r = await call(`/jobs/${job.id}/results`, { headers: other.auth });
    expect(r.status).toBe(404);
  });
});

describe("infer-batch over a stored dataset version", () => {
  const batch = (body: Record<string, unknown>) => json<any>(`/models/${modelId}/infer-batch`, org, { method: "POST", body });

  it("answers 202 with the job referencing the dataset version; its results cover every row, as sync inference answers them", async () => {
    const r = await batch({ dataset_id: datasetId, output_type: "csv" });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body).toMatchObject({ type: "infer_batch", dataset_id: datasetId, input_filename: null });
    expect(r.body.resources.dataset).toMatchObject({ id: datasetId, version_number: 1 });
    const job = await jobEnd(org, r.body.id);
    expect(job.status, job.error_message).toBe("succeeded");
    expect(job.output).toMatchObject({ rows: 240, output_type: "csv" });
    const page = (await (await results(job.id, "?format=json&limit=1000")).json()) as any;
    expect(page.total_rows).toBe(240);
    const sync = (await (await call(`/models/${modelId}/infer`, { method: "POST", headers: org.auth, body: inferForm(churnCsv()) })).json()) as any;
    expect(page.data.prediction).toEqual(sync.data.prediction);
    const csv = await results(job.id);
    expect((await csv.text()).trim().split(/\r?\n/)).toHaveLength(241);
  });

  it("its rows can be explained by their dataset ids", async () => {
    const job = await jobEnd(org, (await batch({ dataset_id: datasetId })).body.id);
    const page = (await (await results(job.id, "?limit=2")).json()) as any;
    const ids = page.data.id;
    const r = await json<any>(`/jobs/${job.id}/explain`, org, { method: "POST", body: { ids } });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const explained = await jobEnd(org, r.body.id);
    expect(explained.status, explained.error_message).toBe("succeeded");
    expect(explained.explanations.map((e: any) => e.id)).toEqual(ids.map(String));
  });

  it("exactly one of dataset_id / dataset_version_id (422), an unknown dataset (422), unknown fields (422)", async () => {
    const neither = await batch({ output_type: "json" });
    expect(neither.status).toBe(422);
    const both = await batch({ dataset_id: datasetId, dataset_version_id: crypto.randomUUID() });
    expect(both.status).toBe(422);
    const unknown = await batch({ dataset_id: crypto.randomUUID() });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc).toEqual(["body", "dataset_id"]);
    expect((await batch({ dataset_id: datasetId, extra: 1 })).status).toBe(422);
  });
});
