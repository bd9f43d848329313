/**
 * A trainer stopped mid-training (SIGTERM, as the platform sends on rollouts and scale-in) with
 * nothing to restart it: `npm start` with two trainers and its restart turned off. The stopping
 * trainer hands its job back and exits; the job runs again at once on the other trainer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall, isTerminal, jsonLogLines, pollUntil, type RunningService, SERVICE_START_MS, startService, table } from "./service";

let svc: RunningService;

beforeAll(async () => {
  // No grace: the running attempt is handed back at once (the path under test, whatever the speed).
  svc = await startService(SERVICE_START_MS, { TRAINERS: "2", TRAINER_RESTART: "0", TRAINER_SHUTDOWN_GRACE_S: "0" });
}, 180_000);

afterAll(async () => {
  await svc?.stop();
});

const api = (path: string, init: RequestInit = {}) => apiCall(svc, path, init);

const until = <T>(what: string, probe: () => Promise<T> | T, done: (v: T) => boolean, timeoutMs: number) =>
  pollUntil(svc, what, probe, done, timeoutMs);

const jsonLines = () => jsonLogLines(svc);

const terminal = isTerminal;
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("a trainer stopped with SIGTERM", () => {
  it("hands its job back and exits; the job succeeds on the other trainer, one version, the hand-back not a failed attempt", async () => {
    const form = new FormData();
    form.append("file", new File([table(5_000)], "sigterm.csv", { type: "text/csv" }));
    form.append("dataset_name", "e2e sigterm");
    const up = await api("/datasets", { method: "POST", body: form });
    const ingest = await until("the ingest", async () => (await api(`/jobs/${up.body.job_id}`)).body, terminal, 120_000);
    expect(ingest.status).toBe("succeeded");
    const train = await api("/models/train", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        model_name: "rolled-over",
        model_type: "prediction",
        dataset_id: up.body.dataset.id,
        label_column: "usage",
        // long enough to be stopped half-way (seconds of boosting), one model (no search)
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
    const jobId: string = train.body.job_id;
    const jobPath = `/jobs/${jobId}`;
    const running = await until(
      "the training",
      async () => (await api(jobPath)).body,
      (j) => j.current_phase === "finetune" || terminal(j),
      120_000,
    );
    expect(running.status, "the training must still be running when its trainer is stopped").toBe("running");

    // the trainer that accepted it (its JSON log line carries its pid)
    const accepted = jsonLines().find((l) => l.component === "trainer" && l.job_id === jobId && l.status === "accepted");
    expect(accepted?.attempt).toBe(1);
    process.kill(accepted.pid, "SIGTERM");
    await until(
      "the stopped trainer to exit",
      () => alive(accepted.pid),
      (a) => !a,
      30_000,
    );
    expect(svc.output()).toMatch(new RegExp(`job ${jobId} attempt 1: handed back`));
    expect(svc.output()).toMatch(/not restarted \(TRAINER_RESTART=0\)/);

    const job = await until("the job to finish", async () => (await api(jobPath)).body, terminal, 60_000);
    expect(job.status, job.error_message).toBe("succeeded");
    // attempt 2 ran on the other trainer
    const finished = jsonLines().find((l) => l.component === "trainer" && l.job_id === jobId && l.status === "succeeded");
    expect(finished).toMatchObject({ attempt: 2 });
    expect(finished.pid).not.toBe(accepted.pid);
    // the job's object recorded the first attempt as handed back, not failed (job-hand-back.test.ts: not counted)
    const ended = jsonLines().find((l) => l.msg === "job finished" && l.job_id === jobId);
    expect(ended).toMatchObject({ status: "succeeded", attempts: 2, handed_back: 1 });
    const versions = (await api(`/models/${train.body.model.id}/versions`)).body;
    expect(versions.items.map((v: any) => v.status)).toEqual(["ready"]);
  }, 300_000);
});
