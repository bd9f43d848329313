import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_HISTORY_POINTS } from "../../src/core/limits";
import { createDb } from "../../src/db/client";
import type { JobDO } from "../../src/durable/job";
import { mirrorJob } from "../../src/jobs/mirror";
import type { JobRecord } from "../../src/jobs/types";
import { json, newOrg, undispatchedIngestJob, waitForJob } from "./helpers";

/** Make the job look as if its worker last reported long ago (and had `attempts` deliveries). */
async function silenceWorker(stub: DurableObjectStub<JobDO>, attempts?: number) {
  await runInDurableObject(stub, async (instance: JobDO, state) => {
    const s: any = await state.storage.get("state");
    s.internal.lastHeartbeatMs = Date.now() - 3_600_000;
    if (attempts !== undefined) s.internal.attempts = attempts;
    await state.storage.put("state", s);
    (instance as any).cache = null;
  });
}

describe("job durable object", () => {
  it("lets exactly one delivery start a queued job", async () => {
    const org = await newOrg();
    const { stub } = await undispatchedIngestJob(org);
    const first = await stub.begin({ messageId: "m1" });
    const duplicate = await stub.begin({ messageId: "m2" });
    expect(first.job?.status).toBe("running");
    expect(duplicate.job).toBeNull();
    expect(duplicate.status).toBe("running");
  });

  it("lets a redelivery of the same message take over a running job", async () => {
    const org = await newOrg();
    const { stub } = await undispatchedIngestJob(org);
    await stub.begin({ messageId: "m1" });
    const again = await stub.begin({ messageId: "m1" });
    expect(again.job?.status).toBe("running");
    expect(again.attempt).toBe(2);
  });

  it("records progress and tells the worker when the job was canceled", async () => {
    const org = await newOrg();
    const { stub, jobId } = await undispatchedIngestJob(org);
    await stub.begin({ messageId: "m1" });
    expect(await stub.report({ progress: 40 })).toEqual({ canceled: false, status: "running" });
    expect((await json(`/jobs/${jobId}`, org)).body.progress).toBe(40);
    await stub.cancel();
    expect((await stub.report({ progress: 50 })).canceled).toBe(true);
    expect(await stub.succeed({ rows: 1 })).toBe(false);
    expect((await json(`/jobs/${jobId}`, org)).body.status).toBe("canceled");
  });

  it("keeps at most 200 metric points, first and newest included", async () => {
    const org = await newOrg();
    const { stub } = await undispatchedIngestJob(org);
    await stub.begin({ messageId: "m1" });
    for (let step = 1; step <= 450; step++) await stub.report({ metric: { step, train_loss: 1 / step, val_loss: null } });
    const history = (await stub.get())!.metricsHistory!;
    expect(history.length).toBeLessThanOrEqual(MAX_HISTORY_POINTS);
    expect(history[0].step).toBe(1);
    expect(history[history.length - 1].step).toBe(450);
    expect(history.map((p) => p.step)).toEqual([...history.map((p) => p.step)].sort((a, b) => a - b));
  });

  it("records credits once the job ends, and none for a job canceled before it ran", async () => {
    const org = await newOrg();
    const ran = await undispatchedIngestJob(org);
    await ran.stub.begin({ messageId: "m1" });
    await ran.stub.succeed({}, 200_000);
    expect((await ran.stub.get())!.creditsConsumed).toBeGreaterThanOrEqual(2.01);
    const idle = await undispatchedIngestJob(org);
    expect((await idle.stub.get())!.creditsConsumed).toBeNull();
    await idle.stub.cancel();
    expect((await idle.stub.get())!.creditsConsumed).toBe(0);
  });

  it("watchdog: restarts a job whose worker went silent, and the restart completes it", async () => {
    const org = await newOrg();
    const { stub, jobId } = await undispatchedIngestJob(org);
    await stub.begin({ messageId: "lost" });
    await silenceWorker(stub);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const job = await waitForJob(org, jobId);
    expect(job.status).toBe("succeeded");
  });

  it("watchdog: fails a silent job on its last attempt with a message", async () => {
    const org = await newOrg();
    const { stub, jobId, datasetId } = await undispatchedIngestJob(org);
    await stub.begin({ messageId: "lost" });
    await silenceWorker(stub, 3);
    await runDurableObjectAlarm(stub);
    const job = (await json(`/jobs/${jobId}`, org)).body;
    expect(job.status).toBe("failed");
    expect(job.error_message).toMatch(/stopped reporting for \d+ s on attempt 3 of 3/);
    expect((await json(`/datasets/${datasetId}`, org)).body.current_version.status).toBe("failed");
  });

  it("watchdog: leaves a job that still reports alone", async () => {
    const org = await newOrg();
    const { stub } = await undispatchedIngestJob(org);
    await stub.begin({ messageId: "m1" });
    await runDurableObjectAlarm(stub);
    expect((await stub.get())!.status).toBe("running");
  });

  it("watchdog: fails an upload that was never completed once its URL expired", async () => {
    const org = await newOrg();
    const prep = await json("/datasets/upload", org, {
      method: "POST",
      body: { dataset_name: "never sent", file: { filename: "x.csv", bytes: 10, content_type: "text/csv" } },
    });
    const stub = env.JOB.get(env.JOB.idFromName(prep.body.job_id));
    await runInDurableObject(stub, async (instance: JobDO, state) => {
      const s: any = await state.storage.get("state");
      s.internal.uploadExpiresAtMs = Date.now() - 1000;
      await state.storage.put("state", s);
      (instance as any).cache = null;
    });
    await runDurableObjectAlarm(stub);
    const job = (await json(`/jobs/${prep.body.job_id}`, org)).body;
    expect(job.status).toBe("failed");
    expect(job.error_message).toContain("signed URL expired");
  });

  it("refuses reports and results from a superseded attempt", async () => {
    const org = await newOrg();
    const { stub } = await undispatchedIngestJob(org);
    const first = await stub.begin({ messageId: "m1" });
    await stub.requeue("transient", first.attempt);
    const second = await stub.begin({ messageId: "m2" });
    expect(second.attempt).toBe(first.attempt + 1);
    expect((await stub.report({ progress: 10 }, first.attempt)).canceled).toBe(true);
    expect(await stub.succeed({ from: "old worker" }, 0, first.attempt)).toBe(false);
    expect(await stub.succeed({ from: "new worker" }, 0, second.attempt)).toBe(true);
    expect((await stub.get())!.output).toEqual({ from: "new worker" });
  });

  it("retries a mirror to D1 that failed, from the alarm", async () => {
    const org = await newOrg();
    const { stub, jobId } = await undispatchedIngestJob(org);
    await stub.begin({ messageId: "m1" });
    // As if the last transition never reached D1: an old copy there, the retry flag set.
    await env.DB.prepare("UPDATE jobs SET status = 'queued', revision = 0 WHERE id = ?").bind(jobId).run();
    await runInDurableObject(stub, async (instance: JobDO, state) => {
      const s: any = await state.storage.get("state");
      s.internal.mirrorPending = true;
      await state.storage.put("state", s);
      (instance as any).cache = null;
    });
    await runDurableObjectAlarm(stub);
    const row = await env.DB.prepare("SELECT status FROM jobs WHERE id = ?").bind(jobId).first<{ status: string }>();
    expect(row?.status).toBe("running");
  });

  it("never lets an older copy overwrite a newer one in D1", async () => {
    const org = await newOrg();
    const { stub, jobId } = await undispatchedIngestJob(org);
    const older = (await stub.get()) as unknown as JobRecord;
    await stub.cancel();
    await mirrorJob(createDb(env.DB), { ...older, status: "queued" }, 1);
    const row = await env.DB.prepare("SELECT status FROM jobs WHERE id = ?").bind(jobId).first<{ status: string }>();
    expect(row?.status).toBe("canceled");
  });
});
