import { beforeAll, describe, expect, it } from "vitest";
import { call, json, newOrg } from "./helpers";
import { readyDataset, trainAndWait } from "./model-helpers";

describe("training a prediction model end to end (in the Worker)", () => {
  let org: any;
  let ds: any;
  let started: any;
  let job: any;

  beforeAll(async () => {
    org = await newOrg();
    ds = await readyDataset(org);
    ({ started, job } = await trainAndWait(org, { dataset_id: ds.id, label_column: "churned", params: { max_rounds: 60 } }));
  }, 120_000);

  it("answers the interface's fields at once", () => {
    expect(started.model.version_number).toBe(1);
    expect(started.status).toBe("queued");
    expect(started.service_runtime_version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("ends succeeded with progress, steps, phase, metrics history and credits", () => {
    expect(job.status, job.error_message).toBe("succeeded");
    expect(job.type).toBe("train");
    expect(job.progress).toBe(100);
    expect(job.current_phase).toBe("finetune");
    expect(job.total_steps).toBeGreaterThanOrEqual(job.current_step);
    expect(job.current_step).toBeGreaterThan(0);
    expect(job.metrics_history.length).toBeGreaterThan(0);
    expect(job.metrics_history.length).toBeLessThanOrEqual(200);
    // the default model search: a point per trial, the best validation loss so far (no ssl points before them)
    expect(job.metrics_history[0]).toEqual({ step: expect.any(Number), train_loss: null, val_loss: expect.any(Number) });
    expect(job.credits_consumed).toBeGreaterThan(0);
    expect(job.service_runtime_version).toBe(started.service_runtime_version);
    expect(job.output.representation).toBe("built");
  });

  it("shows typed train resources and the model on the job", () => {
    expect(job.model_id).toBe(started.model.id);
    expect(job.model_type).toBe("prediction");
    expect(job.dataset_id).toBe(ds.id);
    expect(job.resources).toEqual({
      type: "train",
      model: { id: started.model.id, version_id: started.model.version_id, version_number: 1 },
      dataset: { id: ds.id, version_id: ds.version_id, version_number: 1, archived: false },
    });
  });

  it("makes the model ready with its validation accuracy", async () => {
    const m = await json(`/models/${started.model.id}`, org);
    expect(m.status).toBe(200);
    expect(m.body).toMatchObject({
      model_id: started.model.id,
      model_type: "prediction",
      status: "ready",
      label_column: "churned",
      training_dataset_id: ds.id,
      training_dataset_name: "churn",
      current_version: { version_id: started.model.version_id, version: 1, status: "ready" },
    });
    expect(m.body.current_metrics.accuracy).toBeGreaterThan(0.9);
    expect(m.body.current_version.metrics).toEqual(m.body.current_metrics);
  });

  it("lists the model, its versions, and under its dataset", async () => {
    const list = await json("/models?model_type=prediction&status=ready", org);
    expect(list.body.items.map((x: { model_id: string }) => x.model_id)).toContain(started.model.id);
    const none = await json("/models?status=failed", org);
    expect(none.body.items.map((x: { model_id: string }) => x.model_id)).not.toContain(started.model.id);
    const versions = await json(`/models/${started.model.id}/versions`, org);
    expect(versions.body.items).toEqual([
      expect.objectContaining({ model_version_id: started.model.version_id, model_id: started.model.id, version: 1, status: "ready" }),
    ]);
    const ofDataset = await json(`/datasets/${ds.id}/models`, org);
    expect(ofDataset.body.items.map((x: { model_id: string }) => x.model_id)).toEqual([started.model.id]);
  });

  it("serves the ONNX artifact and its featurizer", async () => {
    const onnx = await call(`/models/${started.model.id}/versions/1/artifact`, { headers: org.auth });
    expect(onnx.status).toBe(200);
    expect(onnx.headers.get("Content-Disposition")).toMatch(/model-v1-model\.onnx/);
    const bytes = new Uint8Array(await onnx.arrayBuffer());
    expect(new TextDecoder().decode(bytes)).toContain("ai.onnx.ml");
    const feat = await json(`/models/${started.model.id}/versions/${started.model.version_id}/artifact?part=featurizer`, org);
    expect(feat.status).toBe(200);
    expect(feat.body).toMatchObject({ format: "prediction-featurizer-v1", task: "classification", label_column: "churned", classes: ["no", "yes"] });
  });

  it("deletes the model, its versions and artifacts", async () => {
    const other = await trainAndWait(org, { dataset_id: ds.id, label_column: "spend", model_name: "to delete", params: { max_rounds: 5 } });
    expect(other.job.status, other.job.error_message).toBe("succeeded");
    const del = await call(`/models/${other.started.model.id}`, { method: "DELETE", headers: org.auth });
    expect(del.status).toBe(204);
    expect((await json(`/models/${other.started.model.id}`, org)).status).toBe(404);
    expect((await call(`/models/${other.started.model.id}/versions/1/artifact`, { headers: org.auth })).status).toBe(404);
    const { env } = await import("cloudflare:workers");
    const left = await env.BUCKET.list({ prefix: `orgs/${org.orgId}/models/${other.started.model.id}/` });
    expect(left.objects).toEqual([]);
  });

  it("keeps another organization out", async () => {
    const stranger = await newOrg();
    expect((await json(`/models/${started.model.id}`, stranger)).status).toBe(404);
    expect((await json(`/models/${started.model.id}/versions`, stranger)).status).toBe(404);
    expect((await call(`/models/${started.model.id}/versions/1/artifact`, { headers: stranger.auth })).status).toBe(404);
  });
});
