/**
 * End to end, like a client: upload → ingest → train (in the trainer process, reached by the
 * Worker over HTTP, reporting back through the internal control routes) → poll → infer.
 */
import { describe, expect, inject, it } from "vitest";
import { apiCall, isTerminal, jobLogMatching, pollUntil, sharedService, table } from "./service";

const svc = await sharedService(inject("sharedService"), "train-infer");

const api = (path: string, init: RequestInit = {}) => apiCall(svc, path, init);

const until = (path: string, done: (b: any) => boolean, timeoutMs = 120_000) =>
  pollUntil(svc, path, async () => (await api(path)).body, done, timeoutMs);

const terminal = isTerminal;

describe("the local service, over HTTP", () => {
  it("uploads, trains in the trainer process, and predicts", async () => {
    const form = new FormData();
    form.append("file", new File([table(300)], "churn.csv", { type: "text/csv" }));
    form.append("dataset_name", "e2e churn");
    const up = await api("/datasets", { method: "POST", body: form });
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    const ingest = await until(`/jobs/${up.body.job_id}`, terminal);
    expect(ingest.status, ingest.error_message).toBe("succeeded");

    const train = await api("/models/train", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ model_name: "e2e", model_type: "prediction", dataset_id: up.body.dataset.id, label_column: "churned" }),
    });
    expect(train.status, JSON.stringify(train.body)).toBe(201);
    const job = await until(`/jobs/${train.body.job_id}`, terminal);
    expect(job.status, job.error_message).toBe("succeeded");
    expect(job.progress).toBe(100);
    expect(job.metrics_history.length).toBeGreaterThan(0);
    // the trainer read the frame straight from R2 (a presigned GET), not through the Worker
    await jobLogMatching(svc, train.body.job_id, /reading the frame straight from R2/);
    const model = await until(`/models/${train.body.model.id}`, (m) => m.status === "ready");
    expect(model.current_metrics.accuracy).toBeGreaterThan(0.9);

    const rows = new FormData();
    rows.append("file", new File(["usage,plan,extra\n10,pro,x\n80,team,y\n80,basic,z\n"], "rows.csv", { type: "text/csv" }));
    const inf = await api(`/models/${train.body.model.id}/infer`, { method: "POST", body: rows });
    expect(inf.status, JSON.stringify(inf.body)).toBe(200);
    expect(inf.body).toMatchObject({ status: "succeeded", model_id: train.body.model.id, model_name: "e2e", model_type: "prediction" });
    expect(inf.body.data.id).toEqual([0, 1, 2]);
    expect(inf.body.data.prediction).toEqual(["yes", "no", "yes"]);
    expect(inf.body.data.prediction_prob.every((p: number) => p > 0.5 && p <= 1)).toBe(true);

    // The same rows asynchronously: a job, then its results; then an explanation of one row.
    const later = new FormData();
    later.append("file", new File(["usage,plan,extra\n10,pro,x\n80,team,y\n80,basic,z\n"], "rows.csv", { type: "text/csv" }));
    const started = await api(`/models/${train.body.model.id}/infer-async`, { method: "POST", body: later });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const batch = await until(`/jobs/${started.body.id}`, terminal);
    expect(batch.status, batch.error_message).toBe("succeeded");
    const results = await api(`/jobs/${batch.id}/results?format=json`);
    expect(results.status).toBe(200);
    expect(results.body.data.prediction).toEqual(inf.body.data.prediction);
    const explain = await api(`/jobs/${batch.id}/explain`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ids: [2] }),
    });
    expect(explain.status, JSON.stringify(explain.body)).toBe(202);
    const explained = await until(`/jobs/${explain.body.id}`, terminal);
    expect(explained.status, explained.error_message).toBe("succeeded");
    expect(explained.explanations[0].explanation_text).toMatch(/Predicted 'yes'/);

    // A model of another type on the same dataset version: the trainer reuses the representation.
    const anomaly = await api("/models/train", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ model_name: "e2e anomaly", model_type: "anomaly", dataset_id: up.body.dataset.id }),
    });
    expect(anomaly.status, JSON.stringify(anomaly.body)).toBe(201);
    const anomalyJob = await until(`/jobs/${anomaly.body.job_id}`, terminal);
    expect(anomalyJob.status, anomalyJob.error_message).toBe("succeeded");
    expect(anomalyJob.output).toMatchObject({ representation: "reused", threshold: expect.any(Number) });
    const odd = new FormData();
    odd.append("file", new File(["usage,plan,churned\n37,pro,no\n5000,pro,yes\n"], "odd.csv", { type: "text/csv" }));
    const scored = await api(`/models/${anomaly.body.model.id}/infer`, { method: "POST", body: odd });
    expect(scored.status, JSON.stringify(scored.body)).toBe(200);
    expect(Object.keys(scored.body.data)).toEqual(["id", "anomaly_score", "is_anomaly"]);
    expect(scored.body.data.anomaly_score[1]).toBeGreaterThan(scored.body.data.anomaly_score[0]);

    // Batch inference over the stored dataset runs in the trainer process, and answers what
    // sync inference answers for the same rows (a tree model and an ONNX graph model).
    const whole = new FormData();
    whole.append("file", new File([table(300)], "all.csv", { type: "text/csv" }));
    const sync = await api(`/models/${train.body.model.id}/infer`, { method: "POST", body: whole });
    const wholeAgain = new FormData();
    wholeAgain.append("file", new File([table(300)], "all.csv", { type: "text/csv" }));
    const syncScores = await api(`/models/${anomaly.body.model.id}/infer`, { method: "POST", body: wholeAgain });
    for (const [modelId, expected, column] of [
      [train.body.model.id, sync.body.data.prediction, "prediction"],
      [anomaly.body.model.id, syncScores.body.data.anomaly_score, "anomaly_score"],
    ] as const) {
      const run = await api(`/models/${modelId}/infer-batch`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ dataset_id: up.body.dataset.id, output_type: "json" }),
      });
      expect(run.status, JSON.stringify(run.body)).toBe(202);
      const done = await until(`/jobs/${run.body.id}`, terminal);
      expect(done.status, done.error_message).toBe("succeeded");
      expect(done.output).toMatchObject({ rows: 300 });
      const page = await api(`/jobs/${done.id}/results?format=json&limit=1000`);
      expect(page.body.data[column]).toEqual(expected);
      await jobLogMatching(svc, done.id, /300 rows inferred/);
    }
  }, 300_000);

  it("trains a causal model in the trainer and estimates its effect over the training data", async () => {
    // spend rises by 10 with the offer; older customers get it more often and spend more anyway
    const lines = ["age,offer,spend"];
    for (let i = 0; i < 400; i++) {
      const age = 20 + ((i * 53) % 50);
      const offer = (i * 7919) % 100 < age + 5 ? 1 : 0;
      lines.push(`${age},${offer},${2 * age + 10 * offer + ((i * 31) % 7) - 3}`);
    }
    const form = new FormData();
    form.append("file", new File([`${lines.join("\n")}\n`], "offers.csv", { type: "text/csv" }));
    form.append("dataset_name", "e2e offers");
    const up = await api("/datasets", { method: "POST", body: form });
    expect((await until(`/jobs/${up.body.job_id}`, terminal)).status).toBe("succeeded");
    const train = await api("/models/train", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ model_name: "e2e causal", model_type: "causal", dataset_id: up.body.dataset.id, label_column: "spend" }),
    });
    expect(train.status, JSON.stringify(train.body)).toBe(201);
    const job = await until(`/jobs/${train.body.job_id}`, terminal);
    expect(job.status, job.error_message).toBe("succeeded");
    expect(job.output.treatment_column).toBe("offer");
    const est = await api(`/models/${train.body.model.id}/estimate-causal-effect`, { method: "POST" });
    expect(est.status, JSON.stringify(est.body)).toBe(200);
    expect(est.body.method).toBe("aipw_cross_fitted");
    expect(est.body.ci_low).toBeLessThan(10);
    expect(est.body.ci_high).toBeGreaterThan(10);
  }, 300_000);

  it("cancels a training running in the trainer process within seconds", async () => {
    const form = new FormData();
    form.append("file", new File([table(20_000)], "big.csv", { type: "text/csv" }));
    form.append("dataset_name", "e2e big");
    const up = await api("/datasets", { method: "POST", body: form });
    expect((await until(`/jobs/${up.body.job_id}`, terminal)).status).toBe("succeeded");
    const train = await api("/models/train", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        model_name: "long",
        model_type: "prediction",
        dataset_id: up.body.dataset.id,
        label_column: "usage",
        // thousands of deep trees at a tiny learning rate: minutes of work
        params: { task: "regression", max_rounds: 10_000, early_stopping_rounds: 0, learning_rate: 0.001, num_leaves: 255, min_data_in_leaf: 1 },
      }),
    });
    expect(train.status, JSON.stringify(train.body)).toBe(201);
    const jobPath = `/jobs/${train.body.job_id}`;
    await until(jobPath, (j) => j.current_phase === "finetune" || terminal(j));
    const canceled = await api(`${jobPath}/cancel`, { method: "POST" });
    expect(canceled.body).toEqual({ job_id: train.body.job_id, status: "canceled" });
    // The trainer learns of it at its next report (every 0.5 s) and stops.
    await until("/health", () => svc.output().includes(`job ${train.body.job_id} attempt 1: stopped`), 10_000);
    const job = (await api(jobPath)).body;
    expect(job.status).toBe("canceled");
    const versions = (await api(`/models/${train.body.model.id}/versions`)).body;
    expect(versions.items[0].status).toBe("canceled");
  }, 300_000);
});
