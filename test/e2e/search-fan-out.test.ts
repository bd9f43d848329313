/**
 * A model search whose trials run on several trainer instances (`npm start` with two trainers, as
 * on a two-core machine): the job's object sends each trial through the queue to a trainer, the
 * coordinator gathers them; a canceled job's trials stop.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall, isTerminal, jsonLogLines, pollUntil, type RunningService, SERVICE_START_MS, startService, table } from "./service";

let svc: RunningService;
let datasetId: string;

beforeAll(async () => {
  svc = await startService(SERVICE_START_MS, { TRAINERS: "2" });
  const form = new FormData();
  form.append("file", new File([table(3_000)], "fan-out.csv", { type: "text/csv" }));
  form.append("dataset_name", "e2e fan-out");
  const up = await api("/datasets", { method: "POST", body: form });
  expect(up.status, JSON.stringify(up.body)).toBe(201);
  const ingest = await until("the ingest", async () => (await api(`/jobs/${up.body.job_id}`)).body, terminal, 120_000);
  expect(ingest.status).toBe("succeeded");
  datasetId = up.body.dataset.id;
}, 300_000);

afterAll(async () => {
  await svc?.stop();
});

const api = (path: string, init: RequestInit = {}) => apiCall(svc, path, init);

const until = <T>(what: string, probe: () => Promise<T> | T, done: (v: T) => boolean, timeoutMs: number) =>
  pollUntil(svc, what, probe, done, timeoutMs);

const terminal = isTerminal;

/** The trainers' JSON log lines about a job's trials. */
const trialLines = (jobId: string) => jsonLogLines(svc).filter((l) => l.component === "trainer" && l.job_id === jobId && l.trial !== undefined);

async function train(name: string, params: Record<string, unknown>) {
  const res = await api("/models/train", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ model_name: name, model_type: "prediction", dataset_id: datasetId, label_column: "churned", params }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.job_id as string;
}

describe("a model search on two trainers", () => {
  it("runs its trials on both and serves the best", async () => {
    const jobId = await train("fanned-out", { max_trials: 6 });
    const job = await until("the training", async () => (await api(`/jobs/${jobId}`)).body, terminal, 240_000);
    expect(job.status, job.error_message).toBe("succeeded");
    const search = job.output.search;
    expect(search.instances).toBe(2);
    expect(search.trials.map((t: any) => t.trial)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(new Set(trialLines(jobId).map((l) => l.pid)).size).toBe(2);
    // the best score so far, one point per trial
    expect(job.metrics_history.filter((p: any) => p.val_loss !== null).length).toBeGreaterThanOrEqual(6);
  }, 300_000);

  it("stops its trials when the job is canceled", async () => {
    const jobId = await train("canceled-search", { max_trials: 500, time_budget_s: 600, learning_rate: 0.005, max_rounds: 5000 });
    // a trial reports about every second while it runs: one has run for a while
    await until(
      "a trial in progress",
      () => svc.output(),
      (out) => new RegExp(`/internal/jobs/${jobId}/search/trials/\\d+/beat`).test(out),
      180_000,
    );
    const cancel = await api(`/jobs/${jobId}/cancel`, { method: "POST" });
    expect(cancel.status, JSON.stringify(cancel.body)).toBeLessThan(300);
    const stopped = await until(
      "the trials to stop",
      () => trialLines(jobId),
      (lines) => lines.some((l) => /stopped \(the search no longer needs it\)/.test(l.msg)),
      30_000,
    );
    expect(stopped.length).toBeGreaterThan(0);
    expect((await api(`/jobs/${jobId}`)).body.status).toBe("canceled");
  }, 400_000);
});
