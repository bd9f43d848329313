/**
 * A sync inference's job is recorded after its answer, yet a client may use the answer's job_id at
 * once: GET /jobs/{id}, its results and explanations answer without the client polling (issue 31).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { INLINE_JOB_FILES_MAX_BYTES } from "../../src/core/limits";
import { call, json, newOrg, type TestOrg } from "./helpers";
import { churnCsv, inferForm, readyDataset, trainAndWait } from "./model-helpers";

let org: TestOrg;
let modelId: string;

beforeAll(async () => {
  org = await newOrg();
  const ds = await readyDataset(org, churnCsv(), "ryw");
  const t = await trainAndWait(org, { dataset_id: ds.id, label_column: "churned", params: { max_rounds: 10 } }, 90_000);
  expect(t.job.status, t.job.error_message).toBe("succeeded");
  modelId = t.started.model.id;
}, 150_000);

const ROWS = "id,usage,plan,region\nk1,10,pro,north\nk2,80,team,south\n";

function rows(n: number): string {
  const lines = ["id,usage,plan,region"];
  for (let i = 0; i < n; i++) lines.push(`c${i},${(i * 13) % 100},${["basic", "pro", "team"][i % 3]},north`);
  return `${lines.join("\n")}\n`;
}

/** A sync inference's answer, the moment it is read: nothing waited for after it. */
async function answered(csv = ROWS, by = org): Promise<{ job_id: string; data: any }> {
  const r = await call(`/models/${modelId}/infer`, { method: "POST", headers: by.auth, body: inferForm(csv) });
  const body = (await r.json()) as any;
  expect(r.status, JSON.stringify(body)).toBe(200);
  return body;
}

describe("right after a sync inference's answer", () => {
  it("GET /jobs/{id} shows the succeeded job", async () => {
    const { job_id } = await answered();
    const r = await json<any>(`/jobs/${job_id}`, org);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ type: "infer_sync", status: "succeeded", model_id: modelId, output: { rows: 2 } });
  });

  it("its results are the answer's rows", async () => {
    const { job_id, data } = await answered();
    const r = await json<any>(`/jobs/${job_id}/results`, org);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toEqual(data);
  });

  it("its rows can be explained", async () => {
    const { job_id } = await answered();
    const r = await json<any>(`/jobs/${job_id}/explain`, org, { method: "POST", body: { ids: ["k2"] } });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body).toMatchObject({ type: "infer_explain", model_id: modelId });
  });

  it("the results of a call too big to keep inline (files in R2) are there too", async () => {
    const csv = rows(Math.ceil(INLINE_JOB_FILES_MAX_BYTES / 15));
    const { job_id, data } = await answered(csv);
    const r = await json<any>(`/jobs/${job_id}/results?limit=3`, org);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.id).toEqual(data.id.slice(0, 3));
  });

  it("another organization still gets 404", async () => {
    const { job_id } = await answered();
    const other = await newOrg();
    expect((await json(`/jobs/${job_id}`, other)).status).toBe(404);
  });
});
