import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { json, newOrg, waitForJob } from "./helpers";
import { churnCsv, jobEnd, readyDataset, startTrain, trainAndWait } from "./model-helpers";

describe("cancel and retry of training jobs", () => {
  let org: any;
  let ds: any;

  beforeAll(async () => {
    org = await newOrg();
    // Enough rows and rounds (no early stopping, tiny learning rate) to be canceled mid-run.
    ds = await readyDataset(org, churnCsv(20_000), "big churn");
  }, 120_000);

  it("a cancel reaches the running training, which stops and leaves no ready version", async () => {
    const r = await startTrain(org, {
      dataset_id: ds.id,
      label_column: "spend",
      // ~10k rounds of deep trees: minutes of work, so the cancel lands mid-run.
      params: { max_rounds: 10_000, early_stopping_rounds: 0, learning_rate: 0.001, num_leaves: 255, min_data_in_leaf: 1 },
    });
    expect(r.status).toBe(201);
    const jobId = r.body.job_id;
    await expect.poll(async () => (await json(`/jobs/${jobId}`, org)).body.current_phase, { timeout: 30_000, interval: 50 }).toBe("finetune");
    const c = await json(`/jobs/${jobId}/cancel`, org, { method: "POST" });
    expect(c.body).toEqual({ job_id: jobId, status: "canceled" });
    const stepAtCancel = (await json(`/jobs/${jobId}`, org)).body.current_step;
    // The run notices at its next report and stops: steps stop moving, nothing is written.
    await new Promise((res) => setTimeout(res, 1500));
    const after = (await json(`/jobs/${jobId}`, org)).body;
    expect(after.status).toBe("canceled");
    expect(after.current_step).toBe(stepAtCancel);
    const model = await json(`/models/${r.body.model.id}`, org);
    expect(model.body.current_version.status).toBe("canceled");
    expect(model.body.status).not.toBe("ready");
    const artifacts = await env.BUCKET.list({ prefix: `orgs/${org.orgId}/models/${r.body.model.id}/` });
    expect(artifacts.objects).toEqual([]);
  });

  it("a training that fails on its data fails with a clear message; retry makes a new job with the same parameters", async () => {
    // Only the id-like customer column as input: nothing the model can use, known at training time.
    const { started, job } = await trainAndWait(org, {
      dataset_id: ds.id,
      label_column: "churned",
      input_columns: ["customer"],
      params: { max_rounds: 5 },
    });
    expect(job.status).toBe("failed");
    expect(job.error_message).toMatch(/no usable feature columns \(.*customer: id-like column/);
    const model = await json(`/models/${started.model.id}`, org);
    expect(model.body.status).toBe("failed");
    const retry = await json(`/jobs/${started.job_id}/retry`, org, { method: "POST" });
    expect(retry.status).toBe(201);
    expect(retry.body.job_id).not.toBe(started.job_id);
    const again = await waitForJob(org, retry.body.job_id);
    expect(again.type).toBe("train");
    expect(again.input).toEqual(job.input);
    expect(again.resources.model).toEqual(job.resources.model);
    expect(again.status).toBe("failed");
  });

  it("refuses a second retry once the first made the model version ready", async () => {
    const r = await startTrain(org, { dataset_id: ds.id, label_column: "churned", params: { max_rounds: 5 } });
    // Fail the job from outside (as the watchdog would), whether or not its run has started.
    await env.JOB.get(env.JOB.idFromName(r.body.job_id)).fail("simulated failure");
    const failed = await jobEnd(org, r.body.job_id);
    expect(failed.status).toBe("failed");
    const retry = await json(`/jobs/${r.body.job_id}/retry`, org, { method: "POST" });
    expect(retry.status).toBe(201);
    expect((await jobEnd(org, retry.body.job_id)).status).toBe("succeeded");
    const again = await json(`/jobs/${r.body.job_id}/retry`, org, { method: "POST" });
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/already retried: its model version is now ready/);
    const model = await json(`/models/${r.body.model.id}`, org);
    expect(model.body.status).toBe("ready");
  });

  it("cancels a non-prediction training the same way, and retries a failed one with its parameters", async () => {
    // other dimensions: the model trains an encoder of its own (1,500 steps on 20,000 rows)
    const r = await startTrain(org, { dataset_id: ds.id, model_type: "embedding", params: { dimensions: 8 } });
    expect(r.status).toBe(201);
    const jobId = r.body.job_id;
    await expect.poll(async () => (await json(`/jobs/${jobId}`, org)).body.current_phase, { timeout: 30_000, interval: 50 }).toBe("ssl");
    expect((await json(`/jobs/${jobId}/cancel`, org, { method: "POST" })).body.status).toBe("canceled");
    const stepAtCancel = (await json(`/jobs/${jobId}`, org)).body.current_step;
    await new Promise((res) => setTimeout(res, 1500));
    expect((await json(`/jobs/${jobId}`, org)).body.current_step).toBe(stepAtCancel);
    expect((await json(`/models/${r.body.model.id}`, org)).body.current_version.status).toBe("canceled");
    expect((await env.BUCKET.list({ prefix: `orgs/${org.orgId}/models/${r.body.model.id}/` })).objects).toEqual([]);

    const failing = await trainAndWait(org, { dataset_id: ds.id, model_type: "clustering", input_columns: ["customer"], params: { n_clusters: 3 } });
    expect(failing.job.status).toBe("failed");
    expect(failing.job.error_message).toMatch(/no usable feature columns/);
    const retry = await json(`/jobs/${failing.started.job_id}/retry`, org, { method: "POST" });
    expect(retry.status).toBe(201);
    const again = await waitForJob(org, retry.body.job_id);
    expect(again.input).toEqual(failing.job.input);
    expect(again.input.params).toEqual({ n_clusters: 3 });
    expect(again.status).toBe("failed");
  });
});
