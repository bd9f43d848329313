/**
 * The control routes hand the trainer presigned R2 URLs when the bucket's S3 API is configured
 * (production; `npm start` with R2_S3_ENDPOINT=local) and none without it (this pool's Worker,
 * where the routes carry the bytes): the ingest task's source files, one UploadPart URL per frame
 * part (at begin, or one part on demand), the frame a training reads. The internal app is called
 * with the configuration added to this pool's bindings.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { internalApp } from "../../src/api/routes/internal";
import { jobObject } from "../../src/jobs/job-object";
import { call, newOrg } from "./helpers";
import { frameKeyOfVersion, preparedIngest, SECRET } from "./ingest-helpers";
import { readyDataset, runningCopy, trainAndWait } from "./model-helpers";

const PRODUCTION = {
  R2_S3_ENDPOINT: "https://acct.r2.cloudflarestorage.com",
  R2_ACCESS_KEY_ID: "key-id",
  R2_SECRET_ACCESS_KEY: "secret",
  R2_BUCKET_NAME: "tabular-ml-data",
};
const LOCAL = { ...PRODUCTION, R2_S3_ENDPOINT: "local" };
type Vars = typeof PRODUCTION | null;

/** A control call to this pool's Worker (vars null) or to the internal app with `vars` configured. */
async function control(vars: Vars, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = { ...SECRET, ...(init.body ? { "Content-Type": "application/json" } : {}) };
  if (!vars) return call(path, { ...init, headers });
  return internalApp.fetch(new Request(`https://api.test${path}`, { ...init, headers }), { ...env, ...vars }, createExecutionContext());
}

const objectPath = (key: string) => `/tabular-ml-data/${key.split("/").map(encodeURIComponent).join("/")}`;

let ingestJob: string;
let trainJob: string;

beforeAll(async () => {
  const org = await newOrg();
  ingestJob = (await preparedIngest(org, ["id,x\n0,1\n", "id,x\n1,2\n"])).job_id;
  const ds = await readyDataset(org);
  trainJob = (await trainAndWait(org, { dataset_id: ds.id, label_column: "churned", params: { max_rounds: 3 } })).started.job_id;
}, 120_000);

async function sourceKeys(versionId: string): Promise<string[]> {
  const rows = await env.DB.prepare("SELECT object_key FROM dataset_files WHERE dataset_version_id = ? ORDER BY rowid")
    .bind(versionId)
    .all<{ object_key: string }>();
  return rows.results.map((r) => r.object_key);
}

describe("the ingest task's source files", () => {
  it("carry no URL without the S3 API: the trainer reads them from sources/{i}", async () => {
    const { id, attempt } = await runningCopy(ingestJob);
    const task = await (await control(null, `/internal/jobs/${id}/task?attempt=${attempt}`)).json<any>();
    expect(task.task.files.map((f: any) => Object.keys(f).sort())).toEqual([
      ["bytes", "filename"],
      ["bytes", "filename"],
    ]);
  });

  it("carry a presigned GET (host signed, one hour) of each file in R2 when it is configured", async () => {
    const { id, attempt, record } = await runningCopy(ingestJob);
    const keys = await sourceKeys(record.datasetVersionId!);
    const res = await control(PRODUCTION, `/internal/jobs/${id}/task?attempt=${attempt}`);
    expect(res.status, await res.clone().text()).toBe(200);
    const { task } = await res.json<any>();
    expect(task.files.map((f: any) => f.filename)).toEqual(["part0.csv", "part1.csv"]);
    task.files.forEach((f: any, i: number) => {
      const url = new URL(f.url);
      expect(url.origin + url.pathname).toBe(`https://acct.r2.cloudflarestorage.com${objectPath(keys[i])}`);
      expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("host");
      expect(url.searchParams.get("X-Amz-Expires")).toBe("3600");
      expect(url.searchParams.get("X-Amz-Credential")).toMatch(/^key-id\//);
    });
  });

  it("with R2_S3_ENDPOINT=local, point at the local bucket's S3 endpoint on the address the trainer called", async () => {
    const { id, attempt } = await runningCopy(ingestJob);
    const { task } = await (await control(LOCAL, `/internal/jobs/${id}/task?attempt=${attempt}`)).json<any>();
    expect(task.files[0].url).toMatch(/^https:\/\/api\.test\/cdn-cgi\/local\/r2\/s3\/tabular-ml-data\//);
  });

  it("a file gone from the bucket fails the job when its URL would be signed, as the route does when read", async () => {
    const org = await newOrg();
    const { job_id } = await preparedIngest(org, ["id,x\n0,1\n"]);
    const { id, attempt, record } = await runningCopy(job_id);
    await env.BUCKET.delete(await sourceKeys(record.datasetVersionId!));
    expect((await control(PRODUCTION, `/internal/jobs/${id}/task?attempt=${attempt}`)).status).toBe(409);
    const job = await jobObject(env.JOB, id).get();
    expect(job?.status).toBe("failed");
    expect(job?.errorMessage).toBe("The uploaded file 'part0.csv' is missing from storage; upload it again.");
  });
});

describe("the frame's upload", () => {
  const begin = (vars: Vars, id: string, body: object) =>
    control(vars, `/internal/jobs/${id}/frame/uploads`, { method: "POST", body: JSON.stringify(body) });

  it("is begun without part URLs, configured or not: each part is signed when it is ready", async () => {
    const { id, attempt } = await runningCopy(ingestJob);
    for (const vars of [null, PRODUCTION]) {
      const res = await begin(vars, id, { attempt });
      expect(res.status, await res.clone().text()).toBe(200);
      const answer = await res.json<{ upload_id: string }>();
      expect(Object.keys(answer)).toEqual(["upload_id"]);
      await control(vars, `/internal/jobs/${id}/frame/abort`, { method: "POST", body: JSON.stringify({ attempt, upload_id: answer.upload_id }) });
    }
  });

  const partUrl = (vars: Vars, id: string, body: object) =>
    control(vars, `/internal/jobs/${id}/frame/part-url`, { method: "POST", body: JSON.stringify(body) });

  it("signs one part on demand when configured (part number, upload id, length signed)", async () => {
    const { id, attempt, record } = await runningCopy(ingestJob);
    const { upload_id } = await (await begin(PRODUCTION, id, { attempt })).json<{ upload_id: string }>();
    const res = await partUrl(PRODUCTION, id, { attempt, upload_id, part_number: 7, bytes: 1234 });
    expect(res.status, await res.clone().text()).toBe(200);
    const url = new URL((await res.json<{ url: string }>()).url);
    expect(url.origin + url.pathname).toBe(`https://acct.r2.cloudflarestorage.com${objectPath(await frameKeyOfVersion(record.datasetVersionId!))}`);
    expect(url.searchParams.get("partNumber")).toBe("7");
    expect(url.searchParams.get("uploadId")).toBe(upload_id);
    expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("content-length;host");
    await control(PRODUCTION, `/internal/jobs/${id}/frame/abort`, { method: "POST", body: JSON.stringify({ attempt, upload_id }) });
  });

  it("signs no part on demand when not configured: url null (PUT frame/parts/{n})", async () => {
    const { id, attempt } = await runningCopy(ingestJob);
    const { upload_id } = await (await begin(null, id, { attempt })).json<{ upload_id: string }>();
    const res = await partUrl(null, id, { attempt, upload_id, part_number: 1, bytes: 1234 });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ url: null });
    await control(null, `/internal/jobs/${id}/frame/abort`, { method: "POST", body: JSON.stringify({ attempt, upload_id }) });
  });

  it("completes with parts whose ETags come quoted, as the S3 API answers them", async () => {
    const { id, attempt, record } = await runningCopy(ingestJob);
    const { upload_id } = await (await begin(null, id, { attempt })).json<{ upload_id: string }>();
    const key = await frameKeyOfVersion(record.datasetVersionId!);
    const part = await env.BUCKET.resumeMultipartUpload(key, upload_id).uploadPart(1, new Uint8Array(100).fill(7));
    const parts = [{ part_number: 1, etag: `"${part.etag}"` }];
    const done = await control(null, `/internal/jobs/${id}/frame/complete`, {
      method: "POST",
      body: JSON.stringify({ attempt, upload_id, parts, bytes: 100 }),
    });
    expect(done.status, await done.clone().text()).toBe(200);
    expect((await env.BUCKET.head(key))?.size).toBe(100);
  });
});

describe("the frame a training reads", () => {
  it("is located by a presigned GET when configured, and by url null (GET frame) when not", async () => {
    const { id, attempt, record } = await runningCopy(trainJob);
    const none = await control(null, `/internal/jobs/${id}/frame/location?attempt=${attempt}`);
    expect(none.status, await none.clone().text()).toBe(200);
    const { url: noUrl, bytes } = await none.json<{ url: string | null; bytes: number }>();
    expect(noUrl).toBeNull();
    expect(bytes).toBeGreaterThan(100);
    const located = await (await control(PRODUCTION, `/internal/jobs/${id}/frame/location?attempt=${attempt}`)).json<{
      url: string;
      bytes: number;
    }>();
    expect(located.bytes).toBe(bytes);
    const url = new URL(located.url);
    expect(url.origin + url.pathname).toBe(`https://acct.r2.cloudflarestorage.com${objectPath(await frameKeyOfVersion(record.datasetVersionId!))}`);
    expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("host");
  });
});
