import { beforeAll, describe, expect, it } from "vitest";
import { csvForm, json, newOrg, prepareSigned, SMALL_CSV, type TestOrg, untilJobEnds, upload } from "./helpers";

/** Org A's resources; every test reaches for them with a fresh org B's key. */
let a: TestOrg;
let ready: { datasetId: string; versionId: string; jobId: string; publicJobId: string };
let failedJobId: string;
let waiting: { datasetId: string; versionId: string; jobId: string };
const NAME = `org-a-secret-${crypto.randomUUID()}`;

beforeAll(async () => {
  a = await newOrg("Org A");
  const ok = await upload(a, SMALL_CSV, { dataset_name: NAME });
  const bad = await upload(a, "a,b\n1,2,3\n");
  const [okJob, badJob] = await Promise.all([untilJobEnds(a, ok.job_id), untilJobEnds(a, bad.job_id)]);
  if (okJob.status !== "succeeded" || badJob.status !== "failed") throw new Error("fixture jobs did not end as expected");
  ready = { datasetId: ok.dataset.id, versionId: ok.dataset.version_id, jobId: ok.job_id, publicJobId: okJob.id };
  failedJobId = bad.job_id;
  const p = await prepareSigned(a, { bytes: 10 });
  waiting = { datasetId: p.dataset.id, versionId: p.dataset.version_id, jobId: p.job_id };
});

async function expect404(path: string, init: Parameters<typeof json>[2] = {}) {
  const b = await newOrg("Org B");
  const r = await json(path, b, init);
  expect(r.status, `${init.method ?? "GET"} ${path}: ${JSON.stringify(r.body)}`).toBe(404);
  expect(r.body).toEqual({ detail: "Not found" });
  return b;
}

describe("another organization's resources answer 404", () => {
  it("GET /datasets/{id}", () => expect404(`/datasets/${ready.datasetId}`));
  it("GET /datasets/{id}/versions", () => expect404(`/datasets/${ready.datasetId}/versions`));
  it("GET /datasets/{id}/preview", () => expect404(`/datasets/${ready.datasetId}/preview`));
  it("GET /datasets/{id}/preview with the version id", () => expect404(`/datasets/${ready.datasetId}/preview?dataset_version_id=${ready.versionId}`));
  it("POST /datasets/{id}/rows/lookup", () => expect404(`/datasets/${ready.datasetId}/rows/lookup`, { method: "POST", body: { ids: [0] } }));
  it("GET /datasets/{id}/models", () => expect404(`/datasets/${ready.datasetId}/models`));
  it("POST /datasets/{version_id}/complete", () => expect404(`/datasets/${waiting.versionId}/complete`, { method: "POST" }));
  it("POST /api/datasets/{version_id}/complete", () => expect404(`/api/datasets/${waiting.versionId}/complete`, { method: "POST" }));
  it("GET /jobs/{id} (UUID)", () => expect404(`/jobs/${ready.jobId}`));
  it("GET /jobs/{id} (public id)", () => expect404(`/jobs/${ready.publicJobId}`));
  it("POST /jobs/{id}/explain", () => expect404(`/jobs/${ready.jobId}/explain`, { method: "POST", body: { ids: [0] } }));

  it("DELETE /datasets/{id}, and the dataset survives", async () => {
    await expect404(`/datasets/${ready.datasetId}`, { method: "DELETE" });
    expect((await json(`/datasets/${ready.datasetId}`, a)).status).toBe(200);
  });

  it("DELETE /datasets/{id}/versions/{vid}, and the version is not archived", async () => {
    await expect404(`/datasets/${ready.datasetId}/versions/${ready.versionId}`, { method: "DELETE" });
    const versions = await json(`/datasets/${ready.datasetId}/versions`, a);
    expect(versions.body.items[0].archived).toBe(false);
  });

  it("DELETE of org B's own dataset path with org A's version id", async () => {
    const b = await newOrg("Org B");
    const own = await prepareSigned(b, { bytes: 10 });
    const r = await json(`/datasets/${own.dataset.id}/versions/${ready.versionId}`, b, { method: "DELETE" });
    expect(r.status).toBe(404);
  });

  it("POST /jobs/{id}/cancel, and the job stays waiting", async () => {
    await expect404(`/jobs/${waiting.jobId}/cancel`, { method: "POST" });
    expect((await json(`/jobs/${waiting.jobId}`, a)).body.status).toBe("waiting_for_upload");
  });

  it("POST /jobs/{id}/retry of a failed job, and no job is created", async () => {
    const b = await expect404(`/jobs/${failedJobId}/retry`, { method: "POST" });
    expect((await json("/jobs", b)).body.items).toEqual([]);
  });

  it("POST /datasets with org A's dataset_id", () =>
    expect404("/datasets", { method: "POST", body: csvForm(SMALL_CSV, { dataset_id: ready.datasetId }) }));

  it("POST /datasets/upload with org A's dataset_id", () =>
    expect404("/datasets/upload", {
      method: "POST",
      body: { dataset_id: ready.datasetId, file: { filename: "d.csv", bytes: 10, content_type: "text/csv" } },
    }));

  it("POST /api/datasets/batch with org A's dataset_id", () =>
    expect404("/api/datasets/batch", {
      method: "POST",
      body: { dataset_id: ready.datasetId, files: [{ filename: "d.csv", bytes: 10, content_type: "text/csv", checksum_sha256: "0".repeat(64) }] },
    }));
});

describe("lists do not show another organization's resources", () => {
  it("GET /datasets, also when searching for org A's name", async () => {
    const b = await newOrg("Org B");
    await prepareSigned(b, { bytes: 10 }, { dataset_name: `${NAME}-b` });
    const all = await json("/datasets?limit=200", b);
    expect(all.body.items.map((d: any) => d.dataset_id)).not.toContain(ready.datasetId);
    expect(all.body.items).toHaveLength(1);
    const search = await json(`/datasets?search=${NAME}`, b);
    expect(search.body.items.map((d: any) => d.name)).toEqual([`${NAME}-b`]);
  });

  it("GET /jobs, also filtered by org A's dataset", async () => {
    const b = await newOrg("Org B");
    const own = await prepareSigned(b, { bytes: 10 });
    const all = await json("/jobs?limit=200", b);
    expect(all.body.items.map((j: any) => j.dataset_id)).toEqual([own.dataset.id]);
    const filtered = await json(`/jobs?dataset_id=${ready.datasetId}`, b);
    expect(filtered.body.items).toEqual([]);
  });

  it("batch overrides with org A's dataset name creates org B's own dataset", async () => {
    const b = await newOrg("Org B");
    const r = await json("/api/datasets/batch", b, {
      method: "POST",
      body: {
        dataset_name: NAME,
        overrides: true,
        files: [{ filename: "d.csv", bytes: 10, content_type: "text/csv", checksum_sha256: "0".repeat(64) }],
      },
    });
    expect(r.status).toBe(201);
    expect(r.body.dataset_id).not.toBe(ready.datasetId);
    expect((await json(`/datasets/${ready.datasetId}/versions`, a)).body.items).toHaveLength(1);
  });
});
