/**
 * POST /jobs/{id}/explain on inference jobs of anomaly and clustering models: contributions that
 * add up to what inference served (the anomaly score; the cluster's margin), the planted outlier
 * column first, counterfactuals that the served model confirms, and the "retrain" failure of a
 * version stored without its explanation file.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, json, newOrg, type TestOrg } from "./helpers";
import { churnCsv, inferForm, jobEnd, readyDataset, trainAndWait } from "./model-helpers";

let org: TestOrg;
let datasetId: string;

/** churnCsv plus one customer whose usage (950) is far outside everyone else's (0-99); the rest of the row is ordinary. */
const OUTLIER = "c_out,950,basic,north,100,yes";

beforeAll(async () => {
  org = await newOrg();
  const ds = await readyDataset(org, `${churnCsv()}${OUTLIER}\n`, "explain-unsupervised");
  datasetId = ds.id;
}, 60_000);

const train = (body: Record<string, unknown>) =>
  trainAndWait(org, { dataset_id: datasetId, model_name: `${body.model_type} model`, ...body }, 90_000);

async function inferSync(modelId: string, csv: string): Promise<{ jobId: string; data: any }> {
  const r = await call(`/models/${modelId}/infer`, { method: "POST", headers: org.auth, body: inferForm(csv) });
  const body = (await r.json()) as any;
  expect(r.status, JSON.stringify(body)).toBe(200);
  return { jobId: body.job_id, data: body.data };
}

/** A sync job is recorded after the response: wait for it before explaining it. */
async function recorded(jobId: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await json(`/jobs/${jobId}`, org)).status === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`sync job ${jobId} was not recorded`);
}

/** POST /jobs/{id}/explain, then the explain job once it has ended. */
async function explained(jobId: string, ids: unknown[]): Promise<any> {
  const r = await json<any>(`/jobs/${jobId}/explain`, org, { method: "POST", body: { ids } });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  expect(r.body).toMatchObject({ type: "infer_explain", explanations: null });
  return jobEnd(org, r.body.id);
}

const sum = (e: any) => e.base_value + e.feature_contributions.reduce((s: number, c: any) => s + c.contribution, 0);
const HEADER = "customer,usage,plan,region,spend,churned";

describe("anomaly model", () => {
  let modelId: string;
  let parent: { jobId: string; data: any };
  let job: any;
  beforeAll(async () => {
    const t = await train({ model_type: "anomaly" });
    expect(t.job.status, t.job.error_message).toBe("succeeded");
    modelId = t.started.model.id;
    parent = await inferSync(modelId, `${HEADER}\nk1,40,pro,north,130,no\n${OUTLIER}\n`);
    await recorded(parent.jobId);
    job = await explained(parent.jobId, [0, 1]);
  }, 150_000);

  it("succeeds; contributions per input column add up to the served anomaly score", () => {
    expect(job.status, job.error_message).toBe("succeeded");
    expect(job.explanations.map((e: any) => e.id)).toEqual(["0", "1"]);
    job.explanations.forEach((e: any, i: number) => {
      expect(e.feature_contributions.map((c: any) => c.column).sort()).toEqual(["churned", "plan", "region", "spend", "usage"]);
      expect(sum(e)).toBeCloseTo(parent.data.anomaly_score[i], 6);
      expect(e.anomaly_score).toBeCloseTo(parent.data.anomaly_score[i], 6);
      expect(e.prediction).toBe(parent.data.is_anomaly[i]);
      expect(e.explanation_gloss).toMatch(/anomaly-score units.*base value/);
      const mags = e.feature_contributions.map((c: any) => Math.abs(c.contribution));
      expect(mags).toEqual([...mags].sort((a, b) => b - a));
    });
  });

  it("the planted outlier is flagged, usage leads its contributions and its sentence", () => {
    const e = job.explanations[1];
    expect(parent.data.is_anomaly[1]).toBe(true);
    // the value as the inference file wrote it (read back as text)
    expect(e.feature_contributions[0].column).toBe("usage");
    expect(String(e.feature_contributions[0].value)).toBe("950");
    expect(e.feature_contributions[0].contribution).toBeGreaterThan(0);
    expect(e.explanation_text).toMatch(
      /^This row is unusual \(anomaly score [\d.]+, above the threshold [\d.]+\) mainly because usage is 950 \(typical: \d+–\d+\)/,
    );
    expect(e.explanation_label).toBe("usage=950");
  });

  it("the flip is a usage the served model no longer flags", async () => {
    const flip = job.explanations[1].prediction_flip;
    expect(flip).toMatchObject({ column: "usage", new_prediction: false });
    expect(String(flip.from)).toBe("950");
    expect(flip.to).toBeLessThan(950);
    const again = await inferSync(modelId, `${HEADER}\nc_out,${flip.to},basic,north,100,yes\n`);
    expect(again.data.is_anomaly[0]).toBe(false);
    expect(again.data.anomaly_score[0]).toBeCloseTo(flip.new_anomaly_score, 6);
  });

  it("an ordinary row has no flip, and says why", () => {
    const e = job.explanations[0];
    if (!e.prediction) {
      expect(e.prediction_flip).toBeNull();
      expect(e.flip_reason).toMatch(/not flagged/);
      expect(e.explanation_text).toMatch(/^This row is not flagged as unusual/);
    }
  });

  it("a version stored before explanations had their file: the job fails and says to retrain", async () => {
    const listed = await env.BUCKET.list({ prefix: `orgs/${org.orgId}/models/${modelId}/` });
    const file = listed.objects.find((o) => o.key.endsWith("/iforest.json"));
    expect(file).toBeDefined();
    await env.BUCKET.delete(file!.key);
    const failed = await explained(parent.jobId, [1]);
    expect(failed.status).toBe("failed");
    expect(failed.error_message).toMatch(/retrain/);
  }, 60_000);
});

describe("clustering model", () => {
  let modelId: string;
  let parent: any;
  let served: any;
  let job: any;
  const CSV = `id,usage,plan,region,spend,churned\na,10,basic,north,20,yes\nb,90,team,south,280,no\nc,55,pro,north,160,no\n`;
  beforeAll(async () => {
    const t = await train({ model_type: "clustering", params: { n_clusters: 3 } });
    expect(t.job.status, t.job.error_message).toBe("succeeded");
    modelId = t.started.model.id;
    // an async (infer_batch) inference job this time, its rows named by an id column
    const start = await call(`/models/${modelId}/infer-async`, { method: "POST", headers: org.auth, body: inferForm(CSV) });
    parent = await jobEnd(org, ((await start.json()) as any).id);
    expect(parent.status, parent.error_message).toBe("succeeded");
    served = ((await (await call(`/jobs/${parent.id}/results?format=json`, { headers: org.auth })).json()) as any).data;
    job = await explained(parent.id, ["a", "b", "c"]);
  }, 150_000);

  it("names the served cluster and the nearest other; contributions add up to the margin between them", () => {
    expect(job.status, job.error_message).toBe("succeeded");
    expect(job.explanations.map((e: any) => e.id)).toEqual(["a", "b", "c"]);
    job.explanations.forEach((e: any, i: number) => {
      expect(e.prediction).toBe(served.cluster[i]);
      expect(e.nearest_other_cluster).not.toBe(e.prediction);
      expect(e.other_distance).toBeGreaterThanOrEqual(e.distance);
      expect(e.base_value).toBe(0); // the features space: the boundary between the two clusters
      expect(sum(e)).toBeCloseTo(e.other_distance - e.distance, 9);
      expect(e.feature_contributions.map((c: any) => c.column).sort()).toEqual(["churned", "plan", "region", "spend", "usage"]);
      expect(e.explanation_text).toMatch(
        new RegExp(`^Placed in cluster ${e.prediction} mainly because .+; the nearest other cluster is ${e.nearest_other_cluster}\\.`),
      );
      expect(e.explanation_gloss).toMatch(/boundary between the two clusters/);
      expect(e.explanation_label).toMatch(/^\w+=/);
    });
  });

  it("each flip is a one-column change the served model puts in the cluster it names", async () => {
    const rows = CSV.trim().split("\n");
    const header = rows[0].split(",");
    let checked = 0;
    for (const [i, e] of job.explanations.entries()) {
      const flip = e.prediction_flip;
      if (!flip) {
        expect(e.flip_reason).toMatch(/\S/);
        continue;
      }
      expect(flip.new_prediction).not.toBe(e.prediction);
      const cells = rows[i + 1].split(",");
      cells[header.indexOf(flip.column)] = String(flip.to);
      const again = await inferSync(modelId, `${rows[0]}\n${cells.join(",")}\n`);
      expect(again.data.cluster[0]).toBe(flip.new_prediction);
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  }, 60_000);
});
