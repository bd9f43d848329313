import { beforeAll, describe, expect, it } from "vitest";
import { call, json, newOrg, uuidOfPublicJobId } from "./helpers";
import { inferForm, readyDataset, trainAndWait } from "./model-helpers";

const SECRET = { Authorization: "Bearer test-internal-secret" };

describe("internal control routes", () => {
  let org: any;
  let ds: any;
  let started: any;

  beforeAll(async () => {
    org = await newOrg();
    ds = await readyDataset(org);
    ({ started } = await trainAndWait(org, { dataset_id: ds.id, label_column: "churned", params: { max_rounds: 3 } }));
  }, 120_000);

  it("refuse a user's API key", async () => {
    const r = await call(`/internal/jobs/${started.job_id}/task?attempt=1`, { headers: org.auth });
    expect(r.status).toBe(401);
    expect(await r.json()).toEqual({ detail: "Not authenticated" });
  });

  it("refuse a wrong secret and no secret", async () => {
    expect((await call(`/internal/jobs/${started.job_id}/task?attempt=1`, { headers: { Authorization: "Bearer nope" } })).status).toBe(401);
    expect((await call(`/internal/jobs/${started.job_id}/frame?attempt=1`)).status).toBe(401);
  });

  it("answer 409 (stop working) for a job that is no longer running", async () => {
    const r = await call(`/internal/jobs/${started.job_id}/frame?attempt=1`, { headers: SECRET });
    expect(r.status).toBe(409);
    const rep = await call(`/internal/jobs/${started.job_id}/report`, {
      method: "POST",
      headers: { ...SECRET, "Content-Type": "application/json" },
      body: JSON.stringify({ attempt: 1, progress: 50 }),
    });
    expect(await rep.json()).toEqual({ canceled: true });
    const job = await json(`/jobs/${started.job_id}`, org);
    expect(job.body.status).toBe("succeeded");
  });

  it("validate the attempt token", async () => {
    const r = await call(`/internal/jobs/${started.job_id}/task`, { headers: SECRET });
    expect(r.status).toBe(422);
  });

  it("serve the trainer's jobs only (training, batch inference, ingest): another job's id is not found, a malformed id is refused", async () => {
    const inferred = await call(`/models/${started.model.id}/infer`, { method: "POST", headers: org.auth, body: inferForm("usage,plan\n10,pro\n") });
    expect(inferred.status).toBe(200);
    const uuid = uuidOfPublicJobId(((await inferred.json()) as any).job_id);
    for (let i = 0; i < 100 && (await json(`/jobs/${uuid}`, org)).status !== 200; i++) await new Promise((r) => setTimeout(r, 100));
    const r = await call(`/internal/jobs/${uuid}/frame?attempt=1`, { headers: SECRET });
    expect(r.status).toBe(404);
    const fail = await call(`/internal/jobs/${uuid}/fail`, {
      method: "POST",
      headers: { ...SECRET, "Content-Type": "application/json" },
      body: JSON.stringify({ attempt: 1, message: "x", permanent: true }),
    });
    expect(fail.status).toBe(404);
    expect((await json(`/jobs/${uuid}`, org)).body.status).toBe("succeeded");
    expect((await call(`/internal/jobs/not-a-uuid/task?attempt=1`, { headers: SECRET })).status).toBe(422);
  });

  it("accept only the two artifact names", async () => {
    const r = await call(`/internal/jobs/${started.job_id}/artifacts/evil.js?attempt=1`, { method: "PUT", headers: SECRET, body: "x" });
    expect(r.status).toBe(404);
  });
});
