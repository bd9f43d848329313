/**
 * Cancel and retry of the jobs inference makes: a batch job and an explain job canceled while
 * running end canceled with nothing to read; a failed one retried makes a new job with the same
 * input, which succeeds with the same answer.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { jobObject } from "../../src/jobs/job-object";
import { json, newOrg, type TestOrg, uuidOfPublicJobId } from "./helpers";
import { jobEnd, readyDataset, runningCopy, trainAndWait } from "./model-helpers";

let org: TestOrg;
let batchId: string;
let explainId: string;

beforeAll(async () => {
  org = await newOrg();
  const ds = await readyDataset(org);
  const { started } = await trainAndWait(org, { dataset_id: ds.id, label_column: "churned", params: { max_rounds: 5 } });
  const b = await json<any>(`/models/${started.model.id}/infer-batch`, org, { method: "POST", body: { dataset_id: ds.id, output_type: "json" } });
  expect(b.status, JSON.stringify(b.body)).toBe(202);
  batchId = b.body.id;
  expect((await jobEnd(org, batchId)).status).toBe("succeeded");
  const e = await json<any>(`/jobs/${batchId}/explain`, org, { method: "POST", body: { ids: [3, 7] } });
  expect(e.status, JSON.stringify(e.body)).toBe(202);
  explainId = e.body.id;
  const end = await jobEnd(org, explainId);
  expect(end.status, end.error_message).toBe("succeeded");
}, 120_000);

describe.each([
  ["batch", () => batchId],
  ["explain", () => explainId],
])("a running %s job", (_kind, source) => {
  it("is canceled, ends canceled and has nothing to read", async () => {
    const { id } = await runningCopy(source());
    const c = await json<any>(`/jobs/${id}/cancel`, org, { method: "POST" });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(c.body.status).toBe("canceled");
    const after = await json<any>(`/jobs/${id}`, org);
    expect(after.body.status).toBe("canceled");
    expect(after.body.output).toBeNull();
    if (after.body.type === "infer_explain") {
      expect(after.body.explanations).toBeNull();
    } else {
      const results = await json<any>(`/jobs/${id}/results`, org);
      expect(results.status).toBe(409);
      expect(results.body.detail).toMatch(/canceled/);
    }
  });

  it("that failed is retried as a new job with the same input, which succeeds with the same answer", async () => {
    const { id, attempt, record } = await runningCopy(source());
    expect(await jobObject(env.JOB, id).fail("the trainer was lost", attempt)).toBe(true);
    const r = await json<any>(`/jobs/${id}/retry`, org, { method: "POST" });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const retried = await jobEnd(org, r.body.job_id);
    expect(retried.status, retried.error_message).toBe("succeeded");
    expect(retried.type).toBe(record.type);
    const stored = await jobObject(env.JOB, uuidOfPublicJobId(r.body.job_id)).get();
    expect(stored?.retryOfJobId).toBe(id);
    expect(stored?.input).toEqual(record.input);
    const original = await json<any>(`/jobs/${source()}`, org);
    if (record.type === "infer_explain") {
      expect(retried.parent_job_id).toBe(original.body.parent_job_id);
      expect(retried.explanations).toEqual(original.body.explanations);
    } else {
      const a = await json<any>(`/jobs/${retried.id}/results?limit=1000`, org);
      const b = await json<any>(`/jobs/${source()}/results?limit=1000`, org);
      expect(a.body.data).toEqual(b.body.data);
    }
  });
});
