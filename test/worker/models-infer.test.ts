import { parquetReadObjects } from "hyparquet";
import Papa from "papaparse";
import { beforeAll, describe, expect, it } from "vitest";
import { call, json, newOrg, SIMPLE_PARQUET } from "./helpers";
import { inferForm, readyDataset, trainAndWait } from "./model-helpers";

describe("synchronous inference in the Worker", () => {
  let org: any;
  let ds: any;
  let cls: any;
  let reg: any;
  let clsId: any;

  beforeAll(async () => {
    org = await newOrg();
    ds = await readyDataset(org);
    // Without `spend`, which encodes usage and plan: the rows below do not carry it.
    cls = await trainAndWait(org, {
      dataset_id: ds.id,
      label_column: "churned",
      input_columns: ["usage", "plan", "region"],
      params: { max_rounds: 60 },
    });
    reg = await trainAndWait(org, { dataset_id: ds.id, label_column: "spend", model_name: "spend", input_columns: ["usage", "plan"] });
    clsId = cls.started.model.id;
  }, 120_000);

  const infer = (modelId: string, content: string | Uint8Array, fields: Record<string, string> = {}, filename = "rows.csv") =>
    call(`/models/${modelId}/infer`, { method: "POST", headers: org.auth, body: inferForm(content, fields, filename) });

  it("answers the interface's fields and the predicted classes with probabilities", async () => {
    const res = await infer(clsId, "usage,plan,region\n10,pro,north\n80,team,south\n80,basic,north\n");
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({
      job_id: expect.any(String),
      status: "succeeded",
      latency_ms: expect.any(Number),
      model_id: clsId,
      model_name: "churn model",
      model_type: "prediction",
      model_version_id: cls.started.model.version_id,
    });
    expect(Number.isInteger(body.latency_ms)).toBe(true);
    expect(Object.keys(body.data)).toEqual(["id", "prediction", "prediction_prob", "prob_no", "prob_yes"]);
    expect(body.data.id).toEqual([0, 1, 2]);
    expect(body.data.prediction).toEqual(["yes", "no", "yes"]);
    for (let i = 0; i < 3; i++) {
      expect(body.data.prob_no[i] + body.data.prob_yes[i]).toBeCloseTo(1, 5);
      expect(body.data.prediction_prob[i]).toBe(Math.max(body.data.prob_no[i], body.data.prob_yes[i]));
    }
  });

  it("keeps the file's own ids, ignores extra columns, and treats missing columns and unseen categories as missing", async () => {
    const res = await infer(clsId, "id,usage,plan,favourite_colour\nA7,10,enterprise,blue\nB8,90,,red\n");
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.data.id).toEqual(["A7", "B8"]);
    expect(body.data.prediction).toHaveLength(2);
    const noFeatures = await infer(clsId, "something_else\n1\n2\n");
    expect(noFeatures.status).toBe(200);
    expect(((await noFeatures.json()) as any).data.prediction).toHaveLength(2);
  });

  it("predicts numbers for a regression model (prediction_prob null)", async () => {
    const res = await infer(reg.started.model.id, "usage,plan\n10,basic\n90,team\n");
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.data.prediction[0]).toBeCloseTo(20, -1);
    expect(body.data.prediction[1]).toBeGreaterThan(body.data.prediction[0] + 100);
    expect(body.data.prediction_prob).toEqual([null, null]);
  });

  it("writes csv and parquet when asked", async () => {
    const csv = await infer(clsId, "usage,plan\n10,pro\n", { output_type: "csv" });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("Content-Type")).toMatch(/^text\/csv/);
    expect(csv.headers.get("X-Job-Id")).toBeTruthy();
    const parsed = Papa.parse<Record<string, string>>((await csv.text()).trim(), { header: true });
    expect(parsed.data[0]).toMatchObject({ id: "0", prediction: "yes" });
    const pq = await infer(clsId, "usage,plan\n10,pro\n80,team\n", { output_type: "parquet" });
    expect(pq.status).toBe(200);
    const rows = await parquetReadObjects({ file: await pq.arrayBuffer() });
    expect(rows.map((r) => r.prediction)).toEqual(["yes", "no"]);
  });

  it("reads a Parquet input", async () => {
    const res = await infer(clsId, SIMPLE_PARQUET, {}, "simple.parquet");
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).data.prediction).toHaveLength(3);
  });

  it("records an infer_sync job", async () => {
    const res = await infer(clsId, "usage,plan\n10,pro\n");
    const { job_id } = (await res.json()) as any;
    await expect.poll(async () => (await json(`/jobs/${job_id}`, org)).status, { timeout: 5000 }).toBe(200);
    const job = (await json(`/jobs/${job_id}`, org)).body;
    expect(job).toMatchObject({
      type: "infer_sync",
      status: "succeeded",
      model_id: clsId,
      input_filename: "rows.csv",
      resources: { type: "infer_sync", model: { id: clsId, version_id: cls.started.model.version_id, version_number: 1 } },
    });
    expect(job.credits_consumed).toBeGreaterThan(0);
  });

  it("uses the requested model version and refuses one of another model", async () => {
    const ok = await infer(clsId, "usage,plan\n10,pro\n", { model_version_id: cls.started.model.version_id });
    expect(ok.status).toBe(200);
    const bad = await infer(clsId, "usage,plan\n10,pro\n", { model_version_id: reg.started.model.version_id });
    expect(bad.status).toBe(422);
  });

  it("refuses bad input with clear errors", async () => {
    const missing = await call(`/models/${clsId}/infer`, { method: "POST", headers: org.auth, body: new FormData() });
    expect(missing.status).toBe(422);
    const badType = await json(`/models/${clsId}/infer`, org, { method: "POST", body: inferForm("usage\n1\n", { output_type: "xml" }) });
    expect(badType.status).toBe(422);
    expect(badType.body.detail[0].loc).toEqual(["body", "output_type"]);
    const png = await infer(clsId, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]), {}, "x.png");
    expect(png.status).toBe(415);
    const ragged = await json(`/models/${clsId}/infer`, org, { method: "POST", body: inferForm("usage,plan\n1,pro,extra,more\n") });
    expect(ragged.status).toBe(422);
    expect(ragged.body.detail[0].msg).toMatch(/Could not read 'rows.csv'/);
    const notJson = await call(`/models/${clsId}/infer`, {
      method: "POST",
      headers: { ...org.auth, "Content-Type": "application/json" },
      body: "{}",
    });
    expect(notJson.status).toBe(415);
    expect((await json(`/models/${crypto.randomUUID()}/infer`, org, { method: "POST", body: inferForm("usage\n1\n") })).status).toBe(404);
  });

  it("answers 409 when the model has no ready version", async () => {
    // This training fails on its data (no usable input column), so the model never gets ready.
    const failed = await trainAndWait(org, { dataset_id: ds.id, label_column: "churned", input_columns: ["customer"], model_name: "never ready" });
    expect(failed.job.status).toBe("failed");
    const res = await json(`/models/${failed.started.model.id}/infer`, org, { method: "POST", body: inferForm("usage\n1\n") });
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatch(/no ready version yet \(version 1 is failed\)/);
  });
});
