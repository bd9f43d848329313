import { beforeAll, describe, expect, it } from "vitest";
import { call, json, newOrg } from "./helpers";
import { inferForm, readyDataset, trainAndWait } from "./model-helpers";

describe("embedding models", () => {
  let org: any;
  let ds: any;
  let shared: any;

  beforeAll(async () => {
    org = await newOrg();
    ds = await readyDataset(org);
    // label_column is ignored by non-prediction types, without error
    shared = await trainAndWait(org, { dataset_id: ds.id, model_type: "embedding", model_name: "vectors", label_column: "churned" });
  }, 120_000);

  const infer = (modelId: string, csv: string) =>
    call(`/models/${modelId}/infer`, { method: "POST", headers: org.auth, body: inferForm(csv) }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as any,
    }));

  it("trains without a phase or loss history once the representation exists", async () => {
    const { job } = shared;
    expect(job.status, job.error_message).toBe("succeeded");
    expect(job.model_type).toBe("embedding");
    expect(job.current_phase).toBeNull();
    expect(job.metrics_history).toBeNull();
    expect(job.progress).toBe(100);
    expect(job.output).toMatchObject({ model_type: "embedding", representation: "built", metrics: {}, dimensions: 16, encoder: "shared" });
    expect(job.output.summary).toMatchObject({ dimensions: 16 });
  });

  it("shows no metrics, its summary, and no label column", async () => {
    const { body } = await json<any>(`/models/${shared.started.model.id}`, org);
    expect(body).toMatchObject({ model_type: "embedding", status: "ready", current_metrics: {} });
    expect(body.label_column).toBeUndefined();
    expect(body.current_version.summary).toMatchObject({ dimensions: 16, encoder: "shared" });
  });

  it("answers one fixed-length vector per row, identical rows giving identical vectors", async () => {
    const { status, body } = await infer(
      shared.started.model.id,
      "id,usage,plan,region\n1,10,pro,north\n2,10,pro,north\n3,90,team,south\n4,,unseen,\n",
    );
    expect(status).toBe(200);
    expect(Object.keys(body.data)).toEqual(["id", "embedding"]);
    expect(body.data.id).toEqual([1, 2, 3, 4]);
    for (const v of body.data.embedding) {
      expect(v).toHaveLength(16);
      for (const x of v) expect(Number.isFinite(x)).toBe(true);
    }
    expect(body.data.embedding[1]).toEqual(body.data.embedding[0]);
    expect(body.data.embedding[2]).not.toEqual(body.data.embedding[0]);
  });

  it("runs long files through the graph in chunks: the same row gives the same vector in every chunk", async () => {
    const { status, body } = await infer(shared.started.model.id, `usage,plan\n${"10,pro\n".repeat(9000)}`);
    expect(status).toBe(200);
    expect(body.data.embedding).toHaveLength(9000);
    expect(body.data.embedding[8999]).toEqual(body.data.embedding[0]);
    expect(body.data.embedding[4096]).toEqual(body.data.embedding[4095]);
  });

  it("writes a vector as its JSON text in csv output", async () => {
    const res = await call(`/models/${shared.started.model.id}/infer`, {
      method: "POST",
      headers: org.auth,
      body: inferForm("usage,plan\n10,pro\n", { output_type: "csv" }),
    });
    expect(res.status).toBe(200);
    const [header, row] = (await res.text()).split("\r\n");
    expect(header).toBe("id,embedding");
    const field = row.slice(row.indexOf(",") + 1);
    expect(JSON.parse(JSON.parse(field))).toHaveLength(16);
  });

  it("trains an encoder of its own for other dimensions (the ssl phase again), reusing the representation", async () => {
    const own = await trainAndWait(org, { dataset_id: ds.id, model_type: "embedding", model_name: "small", params: { dimensions: 4, seed: 3 } });
    expect(own.job.status, own.job.error_message).toBe("succeeded");
    expect(own.job.output).toMatchObject({ representation: "reused", dimensions: 4, encoder: "trained for this model" });
    const { body } = await infer(own.started.model.id, "usage,plan\n10,pro\n");
    expect(body.data.embedding[0]).toHaveLength(4);
  });

  it("downloads the graph with its featurizer in the metadata, and the featurizer file", async () => {
    const onnx = await call(`/models/${shared.started.model.id}/versions/1/artifact`, { headers: org.auth });
    expect(onnx.status).toBe(200);
    const bytes = new Uint8Array(await onnx.arrayBuffer());
    expect(new TextDecoder().decode(bytes)).toContain("unsupervised-featurizer-v1");
    const featurizer = await json<any>(`/models/${shared.started.model.id}/versions/1/artifact?part=featurizer`, org);
    expect(featurizer.body).toMatchObject({ format: "unsupervised-featurizer-v1", model_type: "embedding", head: { dimensions: 16 } });
    const index = await call(`/models/${shared.started.model.id}/versions/1/artifact?part=index`, { headers: org.auth });
    expect(index.status).toBe(404);
  });

  it("retrains into a new version with the same configuration", async () => {
    const r = await json<any>(`/models/${shared.started.model.id}/retrain`, org, { method: "POST", body: { dataset_id: ds.id } });
    expect(r.status).toBe(201);
    expect(r.body.model.version_number).toBe(2);
    const versions = await json<any>(`/models/${shared.started.model.id}/versions`, org);
    expect(versions.body.items).toHaveLength(2);
  });

  it("refuses parameters out of range, naming them", async () => {
    const r = await json<any>("/models/train", org, {
      method: "POST",
      body: { model_name: "bad", model_type: "embedding", dataset_id: ds.id, params: { dimensions: 1 } },
    });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(["body", "params", "dimensions"]);
    const unknown = await json<any>("/models/train", org, {
      method: "POST",
      body: { model_name: "bad", model_type: "embedding", dataset_id: ds.id, params: { n_clusters: 3 } },
    });
    expect(unknown.status).toBe(422);
  });
});
