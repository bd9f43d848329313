/**
 * Retention of inference files: the daily sweep deletes a finished inference job's input rows
 * and results INFERENCE_FILES_RETENTION_DAYS after it finished; afterwards results and explain
 * answer 409 saying so, and the job's output says when.
 */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { INFERENCE_FILES_RETENTION_DAYS } from "../../src/core/limits";
import { createDb } from "../../src/db/client";
import worker from "../../src/index";
import { expireInferenceFiles } from "../../src/models/retention";
import { jobPrefix } from "../../src/storage/keys";
import { call, json, newOrg, type TestOrg, uuidOfPublicJobId } from "./helpers";
import { inferForm, jobEnd, readyDataset, trainAndWait } from "./model-helpers";

const DAY_MS = 24 * 60 * 60_000;
let org: TestOrg;
let modelId: string;
let datasetId: string;

beforeAll(async () => {
  org = await newOrg();
  const ds = await readyDataset(org);
  datasetId = ds.id;
  const { started } = await trainAndWait(org, { dataset_id: ds.id, label_column: "churned", params: { max_rounds: 5 } });
  modelId = started.model.id;
}, 120_000);

/** A recorded sync inference job's uuid: a small one (files kept in D1) or, with `rows`, one whose files go to R2. */
async function syncJob(rows = 2): Promise<string> {
  const lines = Array.from({ length: rows }, (_, i) => `${(i * 7) % 100},${i % 2 ? "pro" : "team"}`);
  const r = await call(`/models/${modelId}/infer`, { method: "POST", headers: org.auth, body: inferForm(`usage,plan\n${lines.join("\n")}\n`) });
  const body = (await r.json()) as any;
  expect(r.status).toBe(200);
  for (let i = 0; i < 100 && (await json(`/jobs/${body.job_id}`, org)).status !== 200; i++) await new Promise((x) => setTimeout(x, 100));
  return uuidOfPublicJobId(body.job_id);
}

async function batchJob(): Promise<string> {
  const r = await json<any>(`/models/${modelId}/infer-batch`, org, { method: "POST", body: { dataset_id: datasetId, output_type: "csv" } });
  expect(r.status).toBe(202);
  expect((await jobEnd(org, r.body.id)).status).toBe("succeeded");
  return uuidOfPublicJobId(r.body.id);
}

const BIG = 2000; // rows: input and results over INLINE_JOB_FILES_MAX_BYTES
/** Files kept for a job: its R2 objects, plus one for a row of inline files in D1. */
const filesOf = async (id: string) => {
  const inR2 = (await env.BUCKET.list({ prefix: jobPrefix(org.orgId, id) })).objects.length;
  const inline = await env.DB.prepare("SELECT count(*) AS n FROM inline_job_files WHERE job_id = ?").bind(id).first<{ n: number }>();
  return inR2 + (inline?.n ?? 0);
};
const sweep = (daysLater: number) => expireInferenceFiles({ db: createDb(env.DB), bucket: env.BUCKET }, Date.now() + daysLater * DAY_MS);

describe("inference files retention", () => {
  it.each([
    ["small sync (in D1)", () => syncJob(), 1],
    ["large sync (in R2)", () => syncJob(BIG), 3], // input + two result pages of RESULT_PAGE_ROWS
  ])("keeps a %s job's files until the retention ends", async (_kind, make, files) => {
    const id = await make();
    expect(await filesOf(id)).toBe(files);
    await sweep(INFERENCE_FILES_RETENTION_DAYS - 1);
    expect(await filesOf(id)).toBe(files);
    expect((await json(`/jobs/${id}/results`, org)).status).toBe(200);
  });

  it.each([
    ["small sync", () => syncJob()],
    ["large sync", () => syncJob(BIG)],
    ["batch", batchJob],
  ])("deletes a %s job's files when it ends; results and explain then answer 409 saying so", async (_kind, make) => {
    const id = await make();
    expect(await sweep(INFERENCE_FILES_RETENTION_DAYS + 1)).toBeGreaterThanOrEqual(1);
    expect(await filesOf(id)).toBe(0);
    const detail = await json<any>(`/jobs/${id}`, org);
    expect(detail.body.status).toBe("succeeded");
    expect(detail.body.output.files_expired_at).toEqual(expect.any(String));
    const results = await json<any>(`/jobs/${id}/results`, org);
    expect(results.status).toBe(409);
    expect(results.body.detail).toMatch(new RegExp(`deleted .*${INFERENCE_FILES_RETENTION_DAYS} days after it finished`));
    const explain = await json<any>(`/jobs/${id}/explain`, org, { method: "POST", body: { ids: [0] } });
    expect(explain.status).toBe(409);
    expect(explain.body.detail).toMatch(/deleted/);
    // a second sweep finds nothing more to do for it
    await sweep(INFERENCE_FILES_RETENTION_DAYS + 1);
    expect((await json<any>(`/jobs/${id}`, org)).body.output.files_expired_at).toBe(detail.body.output.files_expired_at);
  });

  it("runs from the Worker's cron trigger", async () => {
    const id = await syncJob();
    const longAgo = new Date(Date.now() - (INFERENCE_FILES_RETENTION_DAYS + 2) * DAY_MS).toISOString();
    await env.DB.prepare("UPDATE jobs SET finished_at = ? WHERE id = ?").bind(longAgo, id).run();
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: new Date(), cron: "17 3 * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    expect(await filesOf(id)).toBe(0);
    expect((await json<any>(`/jobs/${id}/results`, org)).status).toBe(409);
  });
});
