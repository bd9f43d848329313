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

  it("serves the whole summary as an artifact", async () => {
    const r = await json<any>(`/models/${t.started.model.id}/versions/1/artifact?part=summary`, org);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(t.job.output.summary);
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

describe("anomaly", () => {
  let t: any;
  beforeAll(async () => {
    t = await train({ model_type: "anomaly" });
  }, 120_000);

  it("states the threshold and the training rows it flags", async () => {
    expect(t.job.status, t.job.error_message).toBe("succeeded");
    expect(t.job.output).toMatchObject({ threshold: expect.any(Number), threshold_rule: expect.any(String), anomalous_count: expect.any(Number) });
    expect(t.job.output.anomalous_ids.length).toBe(Math.min(1000, t.job.output.anomalous_count));
    expect(t.job.output.representation).toBe("reused");
    expect((await model(t.started.model.id)).current_metrics).toEqual({});
  });

  it("scores an outlier above an ordinary row, in [0, 1], with the flag from the threshold", async () => {
    const { status, body } = await infer(
      t.started.model.id,
      "id,usage,plan,region,spend,churned\na,37,pro,north,124,no\nb,9000,pro,north,-500000,no\n",
    );
    expect(status).toBe(200);
    expect(Object.keys(body.data)).toEqual(["id", "anomaly_score", "is_anomaly"]);
    const [ordinary, outlier] = body.data.anomaly_score;
    expect(outlier).toBeGreaterThan(ordinary);
    for (const s of body.data.anomaly_score) expect(s >= 0 && s <= 1).toBe(true);
    expect(body.data.is_anomaly).toEqual(body.data.anomaly_score.map((s: number) => s > t.job.output.threshold));
  });

  it("flags the share of training rows asked by contamination", async () => {
    const c = await train({ model_type: "anomaly", params: { contamination: 0.1, seed: 4 } });
    expect(c.job.status, c.job.error_message).toBe("succeeded");
    expect(c.job.output.anomalous_count).toBeGreaterThanOrEqual(20);
    expect(c.job.output.anomalous_count).toBeLessThanOrEqual(28);
  });
});

describe("search", () => {
  let t: any;
  beforeAll(async () => {
    t = await train({ model_type: "search", params: { k: 5, space: "features" } });
  }, 120_000);

  it("finds a training row as its own nearest neighbour, distances ascending", async () => {
    expect(t.job.status, t.job.error_message).toBe("succeeded");
    expect(t.job.output).toMatchObject({ index: "exact", rows: 240, k: 5 });
    // row 7 of churnCsv: usage 59, plan pro, region south, spend 168, churned no
    const { status, body } = await infer(t.started.model.id, "usage,plan,region,spend,churned\n59,pro,south,168,no\n");
    expect(status).toBe(200);
    expect(Object.keys(body.data)).toEqual(["id", "neighbor_ids", "distances"]);
    expect(body.data.neighbor_ids[0]).toHaveLength(5);
    expect(body.data.neighbor_ids[0][0]).toBe(7);
    const d = body.data.distances[0];
    expect(d[0]).toBeLessThan(1e-5);
    expect([...d].sort((a, b) => a - b)).toEqual(d);
  });

  it("serves its index as a downloadable artifact", async () => {
    const res = await call(`/models/${t.started.model.id}/versions/1/artifact?part=index`, { headers: org.auth });
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(240 * 4);
  });

  it("answers at most 10,000 query rows per call, with a 413 that says so", async () => {
    const { status, body } = await infer(t.started.model.id, `usage\n${"5\n".repeat(10_001)}`);
    expect(status).toBe(413);
    expect(body.detail).toMatch(/at most 10,000 query rows/);
  });

  it("refuses k below 1, naming it", async () => {
    const r = await startTrain({ model_type: "search", params: { k: 0 } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(["body", "params", "k"]);
  });
});

describe("clustering", () => {
  let t: any;
  beforeAll(async () => {
    t = await train({ model_type: "clustering", params: { n_clusters: 3 } });
  }, 120_000);

  it("reports n_clusters and silhouette_score as its metrics, sizes and descriptions in its output", async () => {
    expect(t.job.status, t.job.error_message).toBe("succeeded");
    const m = await model(t.started.model.id);
    expect(Object.keys(m.current_metrics).sort()).toEqual(["n_clusters", "silhouette_score"]);
    expect(m.current_metrics.n_clusters).toBe(3);
    expect(m.current_metrics.silhouette_score).toBeGreaterThanOrEqual(-1);
    expect(m.current_metrics.silhouette_score).toBeLessThanOrEqual(1);
    expect(t.job.output.cluster_sizes.reduce((a: number, b: number) => a + b, 0)).toBe(240);
  });

  it("assigns rows to clusters with a description a person can read", async () => {
    const { status, body } = await infer(t.started.model.id, "usage,plan,region,spend,churned\n10,basic,north,20,yes\n90,team,south,280,no\n");
    expect(status).toBe(200);
    expect(Object.keys(body.data)).toEqual(["id", "cluster", "cluster_description"]);
    for (const k of body.data.cluster) expect([0, 1, 2]).toContain(k);
    for (const d of body.data.cluster_description) expect(d).toMatch(/[a-z]/);
  });

  it("chooses k itself when n_clusters is not given", async () => {
    const auto = await train({ model_type: "clustering" });
    expect(auto.job.status, auto.job.error_message).toBe("succeeded");
    const k = (await model(auto.started.model.id)).current_metrics.n_clusters;
    expect(k).toBeGreaterThanOrEqual(2);
    expect(k).toBeLessThanOrEqual(10);
  });

  it("refuses n_clusters below 2 or above the row count, naming it", async () => {
    for (const n of [1, 241]) {
      const r = await startTrain({ model_type: "clustering", params: { n_clusters: n } });
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc).toEqual(["body", "params", "n_clusters"]);
    }
  });
});

describe("what only the data shows", () => {
  it("fails the job with a clear message when no column is usable", async () => {
    // distinct names (id-like) and a constant: nothing to model
    const rows = Array.from({ length: 30 }, (_, i) => `person${i},1`);
    const only = await readyDataset(org, `name,constant\n${rows.join("\n")}\n`, "ids only");
    const r = await trainAndWait(org, { dataset_id: only.id, model_type: "clustering", model_name: "nothing" });
    expect(r.job.status).toBe("failed");
    expect(r.job.error_message).toMatch(/no usable feature/);
  });
});
