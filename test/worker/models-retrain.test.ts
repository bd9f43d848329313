import { beforeAll, describe, expect, it } from "vitest";
import { json, newOrg, upload, waitForJob } from "./helpers";
import { churnCsv, readyDataset, trainAndWait } from "./model-helpers";

describe("retraining and the shared representation", () => {
  let org: any;
  let ds: any;
  let first: any;

  beforeAll(async () => {
    org = await newOrg();
    ds = await readyDataset(org);
    first = await trainAndWait(org, { dataset_id: ds.id, label_column: "churned", params: { max_rounds: 20 } });
  }, 120_000);

  it("builds the representation on the first model of a dataset version, without the encoder (no ssl phase)", () => {
    expect(first.job.status, first.job.error_message).toBe("succeeded");
    expect(first.job.output.representation).toBe("built");
    expect(first.job.output.ssl_steps).toBe(0);
    expect(first.job.metrics_history.length).toBeGreaterThan(0);
  });

  it("reuses it for a second model of another label: no ssl steps", async () => {
    const second = await trainAndWait(org, { dataset_id: ds.id, label_column: "spend", model_name: "spend", params: { max_trials: 5 } });
    expect(second.job.status, second.job.error_message).toBe("succeeded");
    expect(second.job.output.representation).toBe("reused");
    expect(second.job.output.seconds.ssl).toBe(0);
    // the model search's trials, a step each, and no ssl step
    expect(second.job.total_steps).toBe(5);
    expect(second.job.output.search.trials.length).toBeLessThanOrEqual(5);
    // searched by default: nothing to say about a search skipped
    expect(second.job.output.search_skipped).toBeNull();
    expect(second.job.output.task).toBe("regression");
  });

  it("retrains on a new dataset version as version 2, inheriting the configuration", async () => {
    const up = await upload(org, churnCsv(300), { dataset_id: ds.id });
    expect((await waitForJob(org, up.job_id)).status).toBe("succeeded");
    const r = await json(`/models/${first.started.model.id}/retrain`, org, { method: "POST", body: { dataset_id: ds.id } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.model).toMatchObject({ id: first.started.model.id, version_number: 2 });
    expect(r.body.service_runtime_version).toBeTruthy();
    const job = await waitForJob(org, r.body.job_id, 45_000);
    expect(job.status, job.error_message).toBe("succeeded");
    expect(job.input).toMatchObject({ label_column: "churned", params: { max_rounds: 20 }, version_number: 2 });
    expect(job.resources.dataset.version_number).toBe(2);
    const versions = await json(`/models/${first.started.model.id}/versions`, org);
    expect(versions.body.items.map((v: { version: number; status: string }) => [v.version, v.status])).toEqual([
      [2, "ready"],
      [1, "ready"],
    ]);
    const model = await json(`/models/${first.started.model.id}`, org);
    expect(model.body.current_version.version).toBe(2);
  });

  it("retrains on an explicit dataset version", async () => {
    const r = await json(`/models/${first.started.model.id}/retrain`, org, { method: "POST", body: { dataset_version_id: ds.version_id } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.model.version_number).toBe(3);
    expect((await waitForJob(org, r.body.job_id, 45_000)).status).toBe("succeeded");
  });

  it("needs exactly one of dataset_id and dataset_version_id", async () => {
    const both = await json(`/models/${first.started.model.id}/retrain`, org, {
      method: "POST",
      body: { dataset_id: ds.id, dataset_version_id: ds.version_id },
    });
    expect(both.status).toBe(422);
    const none = await json(`/models/${first.started.model.id}/retrain`, org, { method: "POST", body: {} });
    expect(none.status).toBe(422);
  });

  it("answers 404 for an unknown model", async () => {
    const r = await json(`/models/${crypto.randomUUID()}/retrain`, org, { method: "POST", body: { dataset_id: ds.id } });
    expect(r.status).toBe(404);
  });
});
