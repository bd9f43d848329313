/**
 * anomaly, clustering, factors and search through the API: train → job output → model → infer,
 * on one dataset version (every model after the first reuses its representation).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, json, newOrg } from "./helpers";
import { churnCsv, inferForm, readyDataset, trainAndWait } from "./model-helpers";

let org: any;
let ds: any;

beforeAll(async () => {
  org = await newOrg();
  ds = await readyDataset(org, churnCsv(), "unsupervised");
}, 60_000);

const train = (body: Record<string, unknown>) => trainAndWait(org, { dataset_id: ds.id, model_name: `${body.model_type} model`, ...body }, 90_000);
const startTrain = (body: Record<string, unknown>) =>
  json<any>("/models/train", org, { method: "POST", body: { dataset_id: ds.id, model_name: "bad", ...body } });
const infer = (modelId: string, csv: string) =>
  call(`/models/${modelId}/infer`, { method: "POST", headers: org.auth, body: inferForm(csv) }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as any,
  }));
const model = (id: string) => json<any>(`/models/${id}`, org).then((r) => r.body);

describe("factors", () => {
  let t: any;
  beforeAll(async () => {
    t = await train({ model_type: "factors", params: { n_components: 2 } });
  }, 120_000);

  it("states explained variance, loadings and top features in the job output and the model", async () => {
    expect(t.job.status, t.job.error_message).toBe("succeeded");
    expect(t.job.current_phase).toBeNull();
    expect(t.job.metrics_history).toBeNull();
    expect(t.job.output.n_components).toBe(2);
    expect(t.job.output.explained_variance_ratio).toHaveLength(2);
    expect(t.job.output.top_features[0].features[0]).toMatchObject({ column: expect.any(String), loading: expect.any(Number) });
    const m = await model(t.started.model.id);
    expect(m.current_metrics).toEqual({});
    expect(m.current_version.summary.factors).toHaveLength(2);
  });

  it("answers factor_1..factor_k per row", async () => {
    const { status, body } = await infer(t.started.model.id, "usage,plan,region,spend\n10,pro,north,70\n90,team,south,280\n");
    expect(status).toBe(200);
    expect(Object.keys(body.data)).toEqual(["id", "factor_1", "factor_2"]);
    expect(body.data.factor_1[0]).not.toBe(body.data.factor_1[1]);
  });

  it("refuses more components than the data has features, naming the parameter", async () => {
    const r = await startTrain({ model_type: "factors", params: { n_components: 500 } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(["body", "params", "n_components"]);
  });
});
