import { describe, expect, it } from "vitest";
import {
  expect422,
  ingest,
  json,
  newOrg,
  prepareSigned,
  putSigned,
  SMALL_CSV,
  undispatchedIngestJob,
  upload,
  uuidOfPublicJobId,
  waitForJob,
} from "./helpers";

const PUBLIC_ID = /^job_[0-9a-f]{32}$/;
const RAGGED = "a,b\n1,2\n3,4,5\n";

describe("GET /jobs/{id}", () => {
  it("answers the same job for the job_<32hex> form and the UUID", async () => {
    const org = await newOrg();
    const p = await prepareSigned(org, { bytes: 10 });
    const byUuid = await json(`/jobs/${p.job_id}`, org);
    expect(byUuid.status).toBe(200);
    expect(byUuid.body.id).toMatch(PUBLIC_ID);
    expect(uuidOfPublicJobId(byUuid.body.id)).toBe(p.job_id);
    const byPublic = await json(`/jobs/${byUuid.body.id}`, org);
    expect(byPublic.status).toBe(200);
    expect(byPublic.body).toEqual(byUuid.body);
  });

  it("carries created_by, actor_name, resources and credits of a finished ingest job", async () => {
    const org = await newOrg();
    const { created, job } = await ingest(org, SMALL_CSV, { dataset_name: "people" }, "people.csv");
    expect(job).toMatchObject({
      type: "dataset_ingest",
      status: "succeeded",
      created_by: { principal_type: "api_key", api_key_id: org.apiKeyId },
      actor_name: "Ada Tester",
      dataset_id: created.dataset.id,
      dataset_name: "people",
      input_filename: "people.csv",
      resources: {
        type: "dataset_ingest",
        dataset: { id: created.dataset.id, version_id: created.dataset.version_id, version_number: 1, archived: false },
      },
      error_message: null,
      progress: 100,
      current_step: null,
      total_steps: null,
      current_phase: null,
      metrics_history: null,
      explanations: null,
    });
    expect(typeof job.created_by.user_id).toBe("string");
    expect(typeof job.credits_consumed).toBe("number");
    expect(job.credits_consumed).toBeGreaterThan(0);
    expect(typeof job.service_runtime_version).toBe("string");
    expect(Date.parse(job.started_at)).toBeLessThanOrEqual(Date.parse(job.finished_at));
    expect(Date.parse(job.created_at)).toBeLessThanOrEqual(Date.parse(job.started_at));
  });

  it("leaves credits_consumed null until the job ends", async () => {
    const org = await newOrg();
    const p = await prepareSigned(org, { bytes: 10 });
    const job = await json(`/jobs/${p.job_id}`, org);
    expect(job.body).toMatchObject({ status: "waiting_for_upload", credits_consumed: null, started_at: null, finished_at: null });
  });
});

describe("GET /jobs", () => {
  it("lists jobs newest first and pages without overlap", async () => {
    const org = await newOrg();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await prepareSigned(org, { bytes: 10 })).job_id);
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await json(`/jobs?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, org);
      expect(page.status).toBe(200);
      sizes.push(page.body.items.length);
      seen.push(...page.body.items.map((j: any) => uuidOfPublicJobId(j.id)));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(sizes).toEqual([2, 2, 1]);
    expect(seen).toEqual([...ids].reverse());
  });

  it("filters by status", async () => {
    const org = await newOrg();
    const waiting = await prepareSigned(org, { bytes: 10 });
    const { created: bad } = await ingest(org, RAGGED);
    const failed = await json("/jobs?status=failed", org);
    expect(failed.body.items.map((j: any) => uuidOfPublicJobId(j.id))).toEqual([bad.job_id]);
    const w = await json("/jobs?status=waiting_for_upload", org);
    expect(w.body.items.map((j: any) => uuidOfPublicJobId(j.id))).toEqual([waiting.job_id]);
  });

  it("filters by type", async () => {
    const org = await newOrg();
    await prepareSigned(org, { bytes: 10 });
    const ingestJobs = await json("/jobs?type=dataset_ingest", org);
    expect(ingestJobs.body.items).toHaveLength(1);
    const train = await json("/jobs?type=train", org);
    expect(train.body).toEqual({ items: [], next_cursor: null });
  });

  it("filters by dataset_id", async () => {
    const org = await newOrg();
    const a = await prepareSigned(org, { bytes: 10 });
    await prepareSigned(org, { bytes: 10 });
    const r = await json(`/jobs?dataset_id=${a.dataset.id}`, org);
    expect(r.body.items.map((j: any) => j.dataset_id)).toEqual([a.dataset.id]);
  });
});

describe("POST /jobs/{id}/cancel", () => {
  it("cancels a job waiting for its upload; completing it afterwards answers 409", async () => {
    const org = await newOrg();
    const p = await prepareSigned(org, { bytes: 10 });
    const r = await json(`/jobs/${p.job_id}/cancel`, org, { method: "POST" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ job_id: p.job_id, status: "canceled" });
    const job = await json(`/jobs/${p.job_id}`, org);
    expect(job.body).toMatchObject({ status: "canceled", credits_consumed: 0 });
    expect(job.body.finished_at).not.toBeNull();
    const versions = await json(`/datasets/${p.dataset.id}/versions`, org);
    expect(versions.body.items[0].status).toBe("canceled");
    expect((await putSigned(p.upload.upload_url, "0123456789")).status).toBe(409);
    expect((await json(`/datasets/${p.dataset.version_id}/complete`, org, { method: "POST" })).status).toBe(409);
  });

  it("cancels a queued job, by its public id, and it never runs", async () => {
    const org = await newOrg();
    const { jobId } = await undispatchedIngestJob(org);
    const before = await json(`/jobs/${jobId}`, org);
    expect(before.body.status).toBe("queued");
    const r = await json(`/jobs/${before.body.id}/cancel`, org, { method: "POST" });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe("canceled");
    const after = await json(`/jobs/${jobId}`, org);
    expect(after.body).toMatchObject({ status: "canceled", started_at: null });
  });

  it("answers a succeeded job with its status and leaves it as it ended (best effort)", async () => {
    const org = await newOrg();
    const { created } = await ingest(org, SMALL_CSV);
    const r = await json(`/jobs/${created.job_id}/cancel`, org, { method: "POST" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ job_id: created.job_id, status: "succeeded" });
    expect((await json(`/jobs/${created.job_id}`, org)).body.status).toBe("succeeded");
  });

  it("answers a second cancel as the first: canceled", async () => {
    const org = await newOrg();
    const p = await prepareSigned(org, { bytes: 10 });
    expect((await json(`/jobs/${p.job_id}/cancel`, org, { method: "POST" })).body.status).toBe("canceled");
    const again = await json(`/jobs/${p.job_id}/cancel`, org, { method: "POST" });
    expect(again.status).toBe(200);
    expect(again.body.status).toBe("canceled");
  });
});

describe("POST /jobs/{id}/retry", () => {
  it("retries a failed ingest job as a new queued job that fails the same way", async () => {
    const org = await newOrg();
    const { created, job: first } = await ingest(org, RAGGED);
    expect(first.status).toBe("failed");
    const r = await json(`/jobs/${first.id}/retry`, org, { method: "POST" });
    expect(r.status).toBe(201);
    expect(r.body.status).toBe("queued");
    expect(r.body.job_id).not.toBe(created.job_id);
    const second = await waitForJob(org, r.body.job_id);
    expect(second).toMatchObject({ status: "failed", type: "dataset_ingest", dataset_id: created.dataset.id, error_message: first.error_message });
    expect(second.resources.dataset.version_id).toBe(created.dataset.version_id);
    const all = await json("/jobs?type=dataset_ingest", org);
    expect(all.body.items).toHaveLength(2);
  });

  it("answers 409 for a succeeded job", async () => {
    const org = await newOrg();
    const { created } = await ingest(org, SMALL_CSV);
    const r = await json(`/jobs/${created.job_id}/retry`, org, { method: "POST" });
    expect(r.status).toBe(409);
    expect(r.body.detail).toMatch(/Only failed jobs can be retried; this job is succeeded/);
    expect((await json("/jobs", org)).body.items).toHaveLength(1);
  });

  it("answers 409 for a job still waiting for its upload", async () => {
    const org = await newOrg();
    const p = await prepareSigned(org, { bytes: 10 });
    const r = await json(`/jobs/${p.job_id}/retry`, org, { method: "POST" });
    expect(r.status).toBe(409);
  });
});

describe("POST /jobs/{id}/explain", () => {
  it.each([
    ["no ids", { ids: [] }, "too_short"],
    ["501 ids", { ids: Array.from({ length: 501 }, (_, i) => i) }, "too_long"],
  ])("answers 422 for %s", async (_what, body, type) => {
    const org = await newOrg();
    const p = await prepareSigned(org, { bytes: 10 });
    const [item] = expect422(await json(`/jobs/${p.job_id}/explain`, org, { method: "POST", body }));
    expect(item).toMatchObject({ loc: ["body", "ids"], type });
  });

  it("answers 422 when ids is missing", async () => {
    const org = await newOrg();
    const p = await prepareSigned(org, { bytes: 10 });
    const [item] = expect422(await json(`/jobs/${p.job_id}/explain`, org, { method: "POST", body: {} }));
    expect(item).toMatchObject({ loc: ["body", "ids"], type: "missing" });
  });

  it("answers 409 for a job that is not an inference job", async () => {
    const org = await newOrg();
    const { created } = await ingest(org, SMALL_CSV);
    const r = await json(`/jobs/${created.job_id}/explain`, org, { method: "POST", body: { ids: [0, "1"] } });
    expect(r.status).toBe(409);
    expect(r.body.detail).toMatch(/dataset_ingest/);
  });

  it("accepts exactly 500 ids (then refuses the ingest job with 409)", async () => {
    const org = await newOrg();
    const p = await prepareSigned(org, { bytes: 10 });
    const r = await json(`/jobs/${p.job_id}/explain`, org, { method: "POST", body: { ids: Array.from({ length: 500 }, (_, i) => i) } });
    expect(r.status).toBe(409);
  });
});

describe("job after its dataset is deleted", () => {
  it("is still readable, with no dataset reference", async () => {
    const org = await newOrg();
    const created = await upload(org, SMALL_CSV);
    await waitForJob(org, created.job_id);
    expect((await json(`/datasets/${created.dataset.id}`, org, { method: "DELETE" })).status).toBe(204);
    const job = await json(`/jobs/${created.job_id}`, org);
    expect(job.status).toBe(200);
    expect(job.body.status).toBe("succeeded");
    expect(job.body.resources).toEqual({ type: "dataset_ingest", dataset: null });
  });
});
