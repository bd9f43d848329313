/**
 * One convention on every route (issue 31): 201 and 202 answers carry `Location`, every create
 * honours `Idempotency-Key`, version lists are paged like every other list.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, csvForm, json, newOrg, SMALL_CSV, sha256Hex, type TestOrg, upload } from "./helpers";
import { churnCsv, inferForm, orgWithModel, readyDataset } from "./model-helpers";

const batchBody = async () => ({
  dataset_name: "batch",
  files: [{ filename: "a.csv", bytes: 10, content_type: "text/csv", checksum_sha256: await sha256Hex("0123456789") }],
});

/** The Location of an answer, read back with the same key: what it names exists. */
async function followLocation(org: TestOrg, res: Response) {
  const location = res.headers.get("Location");
  expect(location).toMatch(/^\//);
  return json<any>(location as string, org);
}

describe("Location on 201 and 202", () => {
  let model: { org: TestOrg; modelId: string };
  beforeAll(async () => {
    model = await orgWithModel();
  }, 90_000);

  it("POST /datasets names the dataset", async () => {
    const org = await newOrg();
    const r = await json<any>("/datasets", org, { method: "POST", body: csvForm(SMALL_CSV) });
    expect(r.status).toBe(201);
    expect((await followLocation(org, r.res)).body.dataset_id).toBe(r.body.dataset.id);
  });

  it("POST /datasets/upload and POST /api/datasets/batch name the dataset", async () => {
    const org = await newOrg();
    const signed = await json<any>("/datasets/upload", org, {
      method: "POST",
      body: { dataset_name: "signed", file: { filename: "d.csv", bytes: 10, content_type: "text/csv" } },
    });
    expect(signed.res.headers.get("Location")).toBe(`/datasets/${signed.body.dataset.id}`);
    const batch = await json<any>("/api/datasets/batch", org, { method: "POST", body: await batchBody() });
    expect(batch.status).toBe(201);
    expect(batch.res.headers.get("Location")).toBe(`/datasets/${batch.body.dataset_id}`);
  });

  it("POST /models/train names the model", async () => {
    const org = await newOrg();
    const ds = await readyDataset(org, churnCsv(60));
    const r = await json<any>("/models/train", org, {
      method: "POST",
      body: { model_name: "m", model_type: "prediction", dataset_id: ds.id, label_column: "churned", params: { max_rounds: 2 } },
    });
    expect(r.status).toBe(201);
    expect((await followLocation(org, r.res)).body.model_id).toBe(r.body.model.id);
  });

  it("POST /models/{model_id}/infer-batch and infer-async name their job", async () => {
    const { org, modelId } = model;
    const ds = await readyDataset(org, churnCsv(20), "to predict");
    const batch = await json<any>(`/models/${modelId}/infer-batch`, org, { method: "POST", body: { dataset_id: ds.id } });
    expect(batch.status).toBe(202);
    expect((await followLocation(org, batch.res)).body.id).toBe(batch.body.id);
    const form = inferForm("usage,plan\n10,pro\n");
    const async_ = await call(`/models/${modelId}/infer-async`, { method: "POST", headers: org.auth, body: form });
    expect(async_.status).toBe(202);
    expect((await followLocation(org, async_)).body.id).toBe(((await async_.json()) as { id: string }).id);
  });

  it("POST /jobs/{job_id}/retry names the new job", async () => {
    const org = await newOrg();
    const { job_id } = await upload(org, "a,b\n1,2\n3,4,5\n");
    await expect.poll(async () => (await json<any>(`/jobs/${job_id}`, org)).body.status, { timeout: 20_000 }).toBe("failed");
    const r = await json<any>(`/jobs/${job_id}/retry`, org, { method: "POST" });
    expect(r.status).toBe(201);
    expect(r.res.headers.get("Location")).toBe(`/jobs/${r.body.job_id}`);
    expect((await followLocation(org, r.res)).status).toBe(200);
  });

  it("POST /api-keys names the key's own path", async () => {
    const org = await newOrg();
    const r = await json<any>("/api-keys", org, { method: "POST", body: { name: "located" } });
    expect(r.status).toBe(201);
    expect(r.res.headers.get("Location")).toBe(`/api-keys/${r.body.id}`);
  });
});

describe("Idempotency-Key on every create", () => {
  const again = async (org: TestOrg, path: string, body: unknown) => {
    const key = crypto.randomUUID();
    const send = () => json<any>(path, org, { method: "POST", body, headers: { "Idempotency-Key": key } });
    return [await send(), await send()] as const;
  };

  it("POST /datasets/upload: a repeat answers the first preparation and creates no dataset", async () => {
    const org = await newOrg();
    const [first, second] = await again(org, "/datasets/upload", {
      dataset_name: "once",
      file: { filename: "d.csv", bytes: 10, content_type: "text/csv" },
    });
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect((await json<any>("/datasets", org)).body.items).toHaveLength(1);
  });

  it("POST /api/datasets/batch: a repeat answers the first preparation", async () => {
    const org = await newOrg();
    const [first, second] = await again(org, "/api/datasets/batch", await batchBody());
    expect(second.body.dataset_version_id).toBe(first.body.dataset_version_id);
    expect((await json<any>("/datasets", org)).body.items).toHaveLength(1);
  });

  it("POST /api-keys: a repeat answers the same key without its secret (never stored), and no second key", async () => {
    const org = await newOrg();
    const [first, second] = await again(org, "/api-keys", { name: "once" });
    expect(first.status).toBe(201);
    expect(first.body.key).toMatch(/^sk_/);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ id: first.body.id, name: "once" });
    expect(second.body).not.toHaveProperty("key");
    expect((await json<any>("/api-keys", org)).body.items).toHaveLength(2); // the test key and this one
  });

  it("POST /jobs/{job_id}/retry: a repeat answers the same new job", async () => {
    const org = await newOrg();
    const { job_id } = await upload(org, "a,b\n1,2\n3,4,5\n");
    await expect.poll(async () => (await json<any>(`/jobs/${job_id}`, org)).body.status, { timeout: 20_000 }).toBe("failed");
    const [first, second] = await again(org, `/jobs/${job_id}/retry`, undefined);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.job_id).toBe(first.body.job_id);
  });

  it("POST /models/{model_id}/infer-batch, infer-async and POST /jobs/{job_id}/explain: a repeat answers the same job", async () => {
    const { org, modelId } = await orgWithModel();
    const ds = await readyDataset(org, churnCsv(20), "to predict");
    const [b1, b2] = await again(org, `/models/${modelId}/infer-batch`, { dataset_id: ds.id });
    expect(b2.body.id).toBe(b1.body.id);
    const key = crypto.randomUUID();
    const send = () =>
      call(`/models/${modelId}/infer-async`, {
        method: "POST",
        headers: { ...org.auth, "Idempotency-Key": key },
        body: inferForm("usage,plan\n10,pro\n"),
      });
    const [a1, a2] = [(await (await send()).json()) as any, (await (await send()).json()) as any];
    expect(a2.id).toBe(a1.id);
    await expect.poll(async () => (await json<any>(`/jobs/${b1.body.id}`, org)).body.status, { timeout: 30_000 }).toBe("succeeded");
    const [e1, e2] = await again(org, `/jobs/${b1.body.id}/explain`, { ids: [0] });
    expect(e1.status).toBe(202);
    expect(e2.body.id).toBe(e1.body.id);
    const jobs = await json<any>(`/jobs?parent_job_id=${b1.body.id}`, org);
    expect(jobs.body.items).toHaveLength(1);
  }, 90_000);
});

describe("version lists are paged like every list", () => {
  it("GET /datasets/{dataset_id}/versions: limit, next_cursor, the last page's null", async () => {
    const org = await newOrg();
    const first = await upload(org, SMALL_CSV);
    for (let i = 0; i < 2; i++) await upload(org, SMALL_CSV, { dataset_id: first.dataset.id });
    const page1 = await json<any>(`/datasets/${first.dataset.id}/versions?limit=2`, org);
    expect(page1.body.items.map((v: { version: number }) => v.version)).toEqual([3, 2]);
    const page2 = await json<any>(`/datasets/${first.dataset.id}/versions?limit=2&cursor=${page1.body.next_cursor}`, org);
    expect(page2.body).toMatchObject({ items: [{ version: 1 }], next_cursor: null });
  });

  it("GET /models/{model_id}/versions answers a page, and refuses another list's cursor with a 422", async () => {
    const { org, modelId } = await orgWithModel();
    const page = await json<any>(`/models/${modelId}/versions`, org);
    expect(page.body).toMatchObject({ items: [{ version: 1 }], next_cursor: null });
    const datasets = await json<any>("/datasets?limit=1", org);
    const cursor = datasets.body.next_cursor ?? btoa(JSON.stringify(["2026-01-01T00:00:00.000Z", "x"]));
    expect((await json<any>(`/models/${modelId}/versions?cursor=${cursor}`, org)).status).toBe(422);
  }, 90_000);
});
