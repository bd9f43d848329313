/**
 * POST /jobs/{id}/explain on sync and async inference jobs of a prediction model: an
 * infer_explain job whose detail carries `explanations`; the refusals.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, json, newOrg, type TestOrg } from "./helpers";
import { churnCsv, inferForm, jobEnd, readyDataset, trainAndWait } from "./model-helpers";

let org: TestOrg;
let modelId: string;
let datasetId: string;

beforeAll(async () => {
  org = await newOrg();
  const ds = await readyDataset(org, churnCsv(), "explain");
  datasetId = ds.id;
  const t = await trainAndWait(org, { dataset_id: ds.id, label_column: "churned", params: { max_rounds: 30 } }, 90_000);
  expect(t.job.status, t.job.error_message).toBe("succeeded");
  modelId = t.started.model.id;
}, 150_000);

const ROWS = "customer,usage,plan,region\nk1,10,pro,north\nk2,80,team,south\nk3,70,basic,north\n";

async function syncJob(csv = ROWS): Promise<{ jobId: string; data: any }> {
  const r = await call(`/models/${modelId}/infer`, { method: "POST", headers: org.auth, body: inferForm(csv) });
  const body = (await r.json()) as any;
  expect(r.status, JSON.stringify(body)).toBe(200);
  await recorded(body.job_id);
  return { jobId: body.job_id, data: body.data };
}

/** A sync job is recorded after the response (with its input kept in R2): wait for it. */
async function recorded(jobId: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await json(`/jobs/${jobId}`, org)).status === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`sync job ${jobId} was not recorded`);
}

const explain = (jobId: string, ids: unknown[]) => json<any>(`/jobs/${jobId}/explain`, org, { method: "POST", body: { ids } });

describe("explanations of a sync inference job", () => {
  let parent: { jobId: string; data: any };
  let job: any;
  beforeAll(async () => {
    parent = await syncJob();
    // a file without an `id` column: rows are numbered from 0, as in the sync answer
    expect(parent.data.id).toEqual([0, 1, 2]);
    const r = await explain(parent.jobId, [0, "2"]);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body).toMatchObject({ type: "infer_explain", model_id: modelId, explanations: null });
    expect(r.body.parent_job_id.replace(/^job_/, "")).toBe(parent.jobId.replace(/-/g, ""));
    expect(r.body.resources.type).toBe("model_explain");
    job = await jobEnd(org, r.body.id);
  }, 60_000);

  it("succeeds with one explanation per id, in the order asked", () => {
    expect(job.status, job.error_message).toBe("succeeded");
    expect(job.explanations.map((e: any) => e.id)).toEqual(["0", "2"]);
    expect(job.output.explanations).toBeUndefined();
  });

  it("contributions per input column, largest first, adding up to the model's score", () => {
    for (const [i, e] of job.explanations.entries()) {
      const row = i === 0 ? 0 : 2;
      const columns = e.feature_contributions.map((c: any) => c.column);
      // every column the model uses; spend is not in the file: it counts as missing
      expect(columns.sort()).toEqual(["plan", "region", "spend", "usage"]);
      expect(e.feature_contributions.find((c: any) => c.column === "spend").value).toBeNull();
      const mags = e.feature_contributions.map((c: any) => Math.abs(c.contribution));
      expect(mags).toEqual([...mags].sort((a, b) => b - a));
      const raw = e.base_value + e.feature_contributions.reduce((s: number, c: any) => s + c.contribution, 0);
      // binary: the score is the log-odds of the second class ("yes")
      const pYes = 1 / (1 + Math.exp(-raw));
      expect(e.prediction).toBe(parent.data.prediction[row]);
      expect(pYes).toBeCloseTo(parent.data.prob_yes[row], 5);
      expect(e.probability).toBeCloseTo(parent.data.prediction_prob[row], 5);
      expect(e.feature_contributions.find((c: any) => c.column === "plan").value).toBe(i === 0 ? "pro" : "basic");
    }
  });

  it("a sentence, a label, a gloss, and a flip that names a column", () => {
    for (const e of job.explanations) {
      expect(e.explanation_text.length).toBeGreaterThan(20);
      expect(e.explanation_label).toMatch(/\S/);
      expect(e.explanation_gloss).toMatch(/log-odds/);
      if (e.prediction_flip) {
        expect(["usage", "plan", "region", "spend"]).toContain(e.prediction_flip.column);
        expect(e.prediction_flip.new_prediction).not.toBe(e.prediction);
      } else expect(e.flip_reason).toMatch(/\S/);
    }
  });

  it("is listed under its parent with ?parent_job_id=", async () => {
    const r = await json<any>(`/jobs?parent_job_id=${parent.jobId}`, org);
    expect(r.body.items.map((j: any) => j.id)).toEqual([job.id]);
  });
});

describe("explain: async jobs and refusals", () => {
  it("explains a row of an async inference job (numeric ids match string ids)", async () => {
    const start = await call(`/models/${modelId}/infer-async`, {
      method: "POST",
      headers: org.auth,
      body: inferForm("id,usage,plan\n7,5,team\n8,90,pro\n"),
    });
    const parent = await jobEnd(org, ((await start.json()) as any).id);
    expect(parent.status).toBe("succeeded");
    const r = await explain(parent.id, [8]);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const job = await jobEnd(org, r.body.id);
    expect(job.status, job.error_message).toBe("succeeded");
    expect(job.explanations[0].id).toBe("8");
  });

  it("ids not in the job: 422 listing them", async () => {
    const { jobId } = await syncJob();
    const r = await explain(jobId, [1, "nope", 42]);
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(["body", "ids"]);
    expect(r.body.detail[0].msg).toMatch(/: "nope", 42$/);
  });

  it("a failed inference job: 409", async () => {
    const start = await call(`/models/${modelId}/infer-async`, { method: "POST", headers: org.auth, body: inferForm("usage,plan\n") });
    const parent = await jobEnd(org, ((await start.json()) as any).id);
    expect(parent.status).toBe("failed");
    const r = await explain(parent.id, [0]);
    expect(r.status).toBe(409);
    expect(r.body.detail).toMatch(/failed/);
  });

  it("a model type without explanations: 409 naming the supported ones", async () => {
    const t = await trainAndWait(org, { dataset_id: datasetId, model_name: "f", model_type: "factors", params: { n_components: 2 } }, 90_000);
    const r = await call(`/models/${t.started.model.id}/infer`, { method: "POST", headers: org.auth, body: inferForm(ROWS) });
    const jobId = ((await r.json()) as any).job_id;
    await recorded(jobId);
    const e = await explain(jobId, [0]);
    expect(e.status).toBe(409);
    expect(e.body.detail).toMatch(/prediction, causal, anomaly, clustering models.*factors/);
  }, 120_000);
});

describe("explain: a model on many columns", () => {
  it("lists the 20 largest contributions and sums the rest into one entry; the sum still holds", async () => {
    const names = Array.from({ length: 30 }, (_, j) => `c${j}`);
    const lines = [[...names, "label"].join(",")];
    for (let i = 0; i < 300; i++) {
      const row = names.map((_, j) => ((i * (j + 3) * 7) % 97) / 10);
      lines.push([...row, row[0] + row[1] > 9 ? "yes" : "no"].join(","));
    }
    const ds = await readyDataset(org, `${lines.join("\n")}\n`, "wide");
    const t = await trainAndWait(org, { dataset_id: ds.id, label_column: "label", params: { max_rounds: 40, min_data_in_leaf: 2 } }, 90_000);
    expect(t.job.status, t.job.error_message).toBe("succeeded");
    const r = await call(`/models/${t.started.model.id}/infer`, { method: "POST", headers: org.auth, body: inferForm(lines.slice(0, 2).join("\n")) });
    const inf = (await r.json()) as any;
    await recorded(inf.job_id);
    const e = await explain(inf.job_id, [0]);
    const job = await jobEnd(org, e.body.id);
    expect(job.status, job.error_message).toBe("succeeded");
    const [row] = job.explanations;
    expect(row.feature_contributions).toHaveLength(20);
    expect(row.feature_contributions[19].column).toMatch(/^\(\d+ other columns\)$/);
    const raw = row.base_value + row.feature_contributions.reduce((s: number, c: any) => s + c.contribution, 0);
    expect(1 / (1 + Math.exp(-raw))).toBeCloseTo(inf.data.prob_yes[0], 5);
  }, 120_000);
});
