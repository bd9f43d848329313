/**
 * Where a sync inference keeps its input and results: in D1 beside the job when they are small
 * (one write after the answer), in R2 when they are not. Either way the job's results and
 * explanations read the same rows back.
 */
import { env } from "cloudflare:workers";
import { parquetReadObjects } from "hyparquet";
import { beforeAll, describe, expect, it } from "vitest";
import { INLINE_JOB_FILES_MAX_BYTES } from "../../src/core/limits";
import { jobPrefix } from "../../src/storage/keys";
import { call, json, newOrg, type TestOrg, uuidOfPublicJobId } from "./helpers";
import { churnCsv, inferForm, jobEnd, readyDataset, trainAndWait } from "./model-helpers";

let org: TestOrg;
let modelId: string;

beforeAll(async () => {
  org = await newOrg();
  const ds = await readyDataset(org, churnCsv(), "inline");
  const t = await trainAndWait(org, { dataset_id: ds.id, label_column: "churned", params: { max_rounds: 10 } }, 90_000);
  expect(t.job.status, t.job.error_message).toBe("succeeded");
  modelId = t.started.model.id;
}, 150_000);

function rows(n: number): string {
  const lines = ["id,usage,plan,region"];
  for (let i = 0; i < n; i++) lines.push(`r${i},${(i * 13) % 100},${["basic", "pro", "team"][i % 3]},north`);
  return `${lines.join("\n")}\n`;
}

/** Runs a sync inference and waits until its job is recorded (after the answer). */
async function syncJob(csv: string, outputType = "json"): Promise<{ id: string; answer: string }> {
  const r = await call(`/models/${modelId}/infer`, { method: "POST", headers: org.auth, body: inferForm(csv, { output_type: outputType }) });
  expect(r.status).toBe(200);
  const answer = await r.text();
  const id = outputType === "json" ? JSON.parse(answer).job_id : r.headers.get("X-Job-Id")!;
  await expect.poll(async () => (await json(`/jobs/${id}`, org)).status).toBe(200);
  return { id, answer };
}

async function whereKept(publicId: string): Promise<{ inline: number; r2: number }> {
  const id = uuidOfPublicJobId(publicId);
  const row = await env.DB.prepare("SELECT count(*) AS n FROM inline_job_files WHERE job_id = ?").bind(id).first<{ n: number }>();
  const listed = await env.BUCKET.list({ prefix: jobPrefix(org.orgId, id) });
  return { inline: row?.n ?? 0, r2: listed.objects.length };
}

const page = async (id: string, query: string) => (await (await call(`/jobs/${id}/results${query}`, { headers: org.auth })).json()) as any;

describe("a sync inference's files", () => {
  it("are kept in D1 with the job when small: no R2 object is written", async () => {
    const { id } = await syncJob(rows(3));
    expect(await whereKept(id)).toEqual({ inline: 1, r2: 0 });
    const detail = (await json<any>(`/jobs/${id}`, org)).body;
    expect(detail.output).toMatchObject({ rows: 3, inline: true, bytes: {} });
    expect(detail.input).not.toHaveProperty("input_key");
  });

  it("go to R2 when the input is over the inline limit", async () => {
    const csv = rows(Math.ceil(INLINE_JOB_FILES_MAX_BYTES / 15));
    expect(csv.length).toBeGreaterThan(INLINE_JOB_FILES_MAX_BYTES);
    const { id } = await syncJob(csv);
    const kept = await whereKept(id);
    expect(kept.inline).toBe(0);
    expect(kept.r2).toBeGreaterThanOrEqual(2); // the input and a results page
  });

  it("small: results page by page, and as csv and parquet, are the answer's rows", async () => {
    const { id, answer } = await syncJob(rows(5), "csv");
    const first = await page(id, "?format=json&limit=2");
    expect(first).toMatchObject({ total_rows: 5, next_cursor: "2" });
    expect(first.data.id).toEqual(["r0", "r1"]);
    const rest = await page(id, `?format=json&limit=10&cursor=${first.next_cursor}`);
    expect(rest.data.id).toEqual(["r2", "r3", "r4"]);
    expect(rest.next_cursor).toBeNull();
    expect(await (await call(`/jobs/${id}/results`, { headers: org.auth })).text()).toBe(answer);
    const pq = await call(`/jobs/${id}/results?format=parquet`, { headers: org.auth });
    expect(((await parquetReadObjects({ file: await pq.arrayBuffer() })) as any[]).map((o) => o.id)).toEqual(["r0", "r1", "r2", "r3", "r4"]);
  });

  it("small: its rows can be explained by id", async () => {
    const { id } = await syncJob(rows(4));
    const r = await json<any>(`/jobs/${id}/explain`, org, { method: "POST", body: { ids: ["r1", "r3"] } });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const explained = await jobEnd(org, r.body.id);
    expect(explained.status, explained.error_message).toBe("succeeded");
    expect(explained.explanations.map((e: any) => e.id)).toEqual(["r1", "r3"]);
    const unknown = await json<any>(`/jobs/${id}/explain`, org, { method: "POST", body: { ids: ["r9"] } });
    expect(unknown.status).toBe(422);
  });

  it("small: results answer 409 when the inline row is gone", async () => {
    const { id } = await syncJob(rows(2));
    await env.DB.prepare("DELETE FROM inline_job_files WHERE job_id = ?").bind(uuidOfPublicJobId(id)).run();
    const r = await call(`/jobs/${id}/results`, { headers: org.auth });
    expect(r.status).toBe(409);
    expect(((await r.json()) as any).detail).toMatch(/no longer stored/);
  });
});
