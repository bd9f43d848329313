/** The answers of a client's usual calls, each checked against the served OpenAPI document. */
import { describe, expect, it } from "vitest";
import { call, csvForm, newOrg, SMALL_CSV, type TestOrg, waitForJob } from "./helpers";
import { churnCsv, inferForm, readyDataset } from "./model-helpers";
import { answerProblems } from "./openapi-answers";

/** A request whose answer must be one the document describes. */
async function checked(org: TestOrg | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const init: RequestInit = { method, headers: { ...(org?.auth ?? {}), ...headers } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["Content-Type"] = "application/json";
  }
  const res = await call(path, init);
  expect(await answerProblems(method, path, res)).toEqual([]);
  return { status: res.status, body: res.status === 204 ? null : ((await res.json().catch(() => null)) as any) };
}

describe("answers validate against the OpenAPI document", () => {
  it("datasets, jobs and API keys, errors included", async () => {
    const org = await newOrg();
    const up = await checked(org, "POST", "/datasets", csvForm(SMALL_CSV));
    await waitForJob(org, up.body.job_id);
    const id = up.body.dataset.id;
    for (const path of [`/datasets`, `/datasets/${id}`, `/datasets/${id}/versions`, `/datasets/${id}/preview`, `/datasets/${id}/models`, "/jobs"]) {
      expect((await checked(org, "GET", path)).status, path).toBe(200);
    }
    const job = await checked(org, "GET", `/jobs/${up.body.job_id}`);
    expect((await checked(org, "POST", `/jobs/${job.body.id}/cancel`)).body.status).toBe("succeeded");
    await checked(org, "POST", `/datasets/${id}/rows/lookup`, { ids: [0, 99] });
    await checked(org, "POST", "/datasets/upload", { dataset_name: "s", file: { filename: "d.csv", bytes: 10, content_type: "text/csv" } });
    const key = { "Idempotency-Key": crypto.randomUUID() };
    expect((await checked(org, "POST", "/api-keys", { name: "k" }, key)).status).toBe(201);
    expect((await checked(org, "POST", "/api-keys", { name: "k" }, key)).status).toBe(200);
    await checked(org, "GET", "/api-keys");
    expect((await checked(org, "GET", `/models/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await checked(org, "GET", "/datasets?limit=0")).status).toBe(422);
    expect((await checked(null, "GET", "/jobs")).status).toBe(401);
  });

  it("training, models and inference", async () => {
    const org = await newOrg();
    const ds = await readyDataset(org, churnCsv(80));
    const body = { model_name: "m", model_type: "prediction", dataset_id: ds.id, label_column: "churned", params: { max_rounds: 3 } };
    const started = await checked(org, "POST", "/models/train", body);
    expect((await waitForJob(org, started.body.job_id, 45_000)).status).toBe("succeeded");
    const modelId = started.body.model.id;
    for (const path of ["/models", `/models/${modelId}`, `/models/${modelId}/versions`])
      expect((await checked(org, "GET", path)).status, path).toBe(200);
    expect((await checked(org, "POST", `/models/${modelId}/infer`, inferForm("usage,plan\n10,pro\n80,basic\n"))).status).toBe(200);
    expect((await checked(org, "POST", `/models/${modelId}/infer-batch`, { dataset_id: ds.id })).status).toBe(202);
    expect((await checked(org, "POST", `/models/${modelId}/retrain`, { dataset_id: ds.id })).status).toBe(201);
  }, 90_000);
});
