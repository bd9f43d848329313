/**
 * A trainer process killed mid-training (`npm start` supervises its trainers): it is started
 * again, and the job it ran is restarted on it at once. A service of its own: killing a trainer of
 * the shared one would restart the other files' jobs too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall, isTerminal, pollUntil, type RunningService, startService, table } from "./service";

let svc: RunningService;

beforeAll(async () => {
  svc = await startService();
}, 180_000);

afterAll(async () => {
  await svc?.stop();
});

const api = (path: string, init: RequestInit = {}) => apiCall(svc, path, init);

const until = (path: string, done: (b: any) => boolean, timeoutMs = 120_000) =>
  pollUntil(svc, path, async () => (await api(path)).body, done, timeoutMs);

const terminal = isTerminal;

describe("the local service's trainer supervision", () => {
  it("a trainer killed mid-training is started again and the job is restarted on it at once, ending with one ready version", async () => {
    const form = new FormData();
    form.append("file", new File([table(5_000)], "kill.csv", { type: "text/csv" }));
    form.append("dataset_name", "e2e kill");
    const up = await api("/datasets", { method: "POST", body: form });
    expect((await until(`/jobs/${up.body.job_id}`, terminal)).status).toBe("succeeded");
    const train = await api("/models/train", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        model_name: "survivor",
        model_type: "prediction",
        dataset_id: up.body.dataset.id,
        label_column: "usage",
        // long enough to be killed half-way (seconds of boosting), short enough to run twice, one model (no search)
        params: {
          task: "regression",
          search: "off",
          max_rounds: 1500,
          early_stopping_rounds: 0,
          learning_rate: 0.02,
          num_leaves: 63,
          min_data_in_leaf: 1,
        },
      }),
    });
    expect(train.status, JSON.stringify(train.body)).toBe(201);
    const jobPath = `/jobs/${train.body.job_id}`;
    const running = await until(jobPath, (j) => j.current_phase === "finetune" || terminal(j));
    expect(running.status, "the training must still be running when the trainer is killed").toBe("running");
    const pids = [...svc.output().matchAll(/trainer process started \(pid (\d+)\)/g)].map((m) => Number(m[1]));
    process.kill(pids.at(-1)!, "SIGKILL");
    // The supervisor starts a new trainer, which tells the Worker; the job is restarted on it.
    await until("/health", () => /1 job\(s\) lost by a previous trainer process were restarted/.test(svc.output()), 60_000);
    const job = await until(jobPath, terminal, 120_000);
    expect(job.status, job.error_message).toBe("succeeded");
    expect(svc.output()).toMatch(new RegExp(`job ${train.body.job_id} attempt 2: succeeded`));
    const versions = (await api(`/models/${train.body.model.id}/versions`)).body;
    expect(versions.items.map((v: any) => v.status)).toEqual(["ready"]);
  }, 300_000);
});
