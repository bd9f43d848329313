import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { handleQueueBatch } from "../../src/queue/consumer";
import { json, newOrg, undispatchedIngestJob } from "./helpers";

/** R2 with reads failing, as in an outage: the consumer must retry, then fail the job. */
function failingBucket(): R2Bucket {
  return new Proxy(env.BUCKET, {
    get(target, prop) {
      if (prop === "get") return async () => Promise.reject(new Error("R2 unavailable (simulated outage)"));
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

async function deliver(jobId: string, attempts: number, bucket: R2Bucket, queue = "tabular-ml-jobs") {
  const batch = createMessageBatch(queue, [{ id: `msg-${jobId}`, timestamp: Date.now(), attempts, body: { job_id: jobId } }]);
  const ctx = createExecutionContext();
  await handleQueueBatch(batch, { env, bucket });
  return getQueueResult(batch, ctx);
}

describe("queue consumer", () => {
  it("runs a delivered job to success and acks the message", async () => {
    const org = await newOrg();
    const { jobId } = await undispatchedIngestJob(org);
    const result = await deliver(jobId, 1, env.BUCKET);
    expect(result.explicitAcks).toEqual([`msg-${jobId}`]);
    expect((await json(`/jobs/${jobId}`, org)).body.status).toBe("succeeded");
  });

  it("puts a job back to queued and asks for a retry after a transient error", async () => {
    const org = await newOrg();
    const { jobId } = await undispatchedIngestJob(org);
    const result = await deliver(jobId, 1, failingBucket());
    expect(result.retryMessages.map((m) => m.msgId)).toEqual([`msg-${jobId}`]);
    const job = (await json(`/jobs/${jobId}`, org)).body;
    expect(job.status).toBe("queued");
    expect(job.error_message).toContain("R2 unavailable");
  });

  it("fails the job with the error's message on the last attempt, never leaving it running", async () => {
    const org = await newOrg();
    const { jobId, datasetId } = await undispatchedIngestJob(org);
    for (const attempt of [1, 2]) expect((await deliver(jobId, attempt, failingBucket())).retryMessages).toHaveLength(1);
    const last = await deliver(jobId, 3, failingBucket());
    expect(last.explicitAcks).toEqual([`msg-${jobId}`]);
    const job = (await json(`/jobs/${jobId}`, org)).body;
    expect(job.status).toBe("failed");
    expect(job.error_message).toBe("The job failed after 3 attempts: R2 unavailable (simulated outage)");
    expect((await json(`/datasets/${datasetId}`, org)).body.current_version.status).toBe("failed");
  });

  it("does no work for a duplicate delivery of a finished job", async () => {
    const org = await newOrg();
    const { jobId } = await undispatchedIngestJob(org);
    await deliver(jobId, 1, env.BUCKET);
    const before = (await json(`/jobs/${jobId}`, org)).body;
    const again = await deliver(jobId, 1, failingBucket());
    expect(again.explicitAcks).toHaveLength(1);
    const after = (await json(`/jobs/${jobId}`, org)).body;
    expect(after.status).toBe("succeeded");
    expect(after.finished_at).toBe(before.finished_at);
  });

  it("acks and drops a malformed message", async () => {
    const batch = createMessageBatch("tabular-ml-jobs", [{ id: "bad", timestamp: Date.now(), attempts: 1, body: { nope: 1 } }]);
    const ctx = createExecutionContext();
    await handleQueueBatch(batch, { env, bucket: env.BUCKET });
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["bad"]);
  });

  it("fails the job of a dead-lettered message", async () => {
    const org = await newOrg();
    const { jobId } = await undispatchedIngestJob(org);
    await deliver(jobId, 4, env.BUCKET, "tabular-ml-jobs-dlq");
    const job = (await json(`/jobs/${jobId}`, org)).body;
    expect(job.status).toBe("failed");
    expect(job.error_message).toContain("dead-letter queue");
  });
});
