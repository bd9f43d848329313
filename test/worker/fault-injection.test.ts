/**
 * Faults injected through the real bindings, wrapped: a queue message delivered twice at once, a
 * job object's alarm firing twice, D1 failing one mirror write, R2 failing one write. Each run
 * ends in exactly one terminal state, with one dataset version and nothing lost or duplicated.
 */
import { createExecutionContext, createMessageBatch, getQueueResult, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { JobDO } from "../../src/durable/job";
import { handleQueueBatch } from "../../src/queue/consumer";
import { json, newOrg, type TestOrg, undispatchedIngestJob, waitForJob } from "./helpers";

/** The bucket with its writes counted, and the first `failPuts` of them failing. */
function wrappedBucket(failPuts = 0) {
  const counts = { puts: 0, failed: 0, keys: new Set<string>() };
  const bucket = new Proxy(env.BUCKET, {
    get(target, prop) {
      if (prop === "put") {
        return async (...args: Parameters<R2Bucket["put"]>) => {
          if (counts.failed < failPuts) {
            counts.failed++;
            throw new Error("R2 write failed (injected)");
          }
          counts.puts++;
          counts.keys.add(args[0].replace(/[0-9a-f-]{36}/g, "<id>"));
          return target.put(...args);
        };
      }
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { bucket, counts };
}

async function deliver(jobId: string, attempts: number, bucket: R2Bucket, messageId = `msg-${jobId}`) {
  const batch = createMessageBatch("tabular-ml-jobs", [{ id: messageId, timestamp: Date.now(), attempts, body: { job_id: jobId } }]);
  const ctx = createExecutionContext();
  await handleQueueBatch(batch, { env, bucket });
  return getQueueResult(batch, ctx);
}

/** The dataset has exactly one version, ready, with every row of SMALL_CSV. */
async function expectOneReadyVersion(org: TestOrg, datasetId: string) {
  const versions = await json(`/datasets/${datasetId}/versions`, org);
  expect(versions.body.items).toHaveLength(1);
  expect(versions.body.items[0]).toMatchObject({ status: "ready", row_count: 4 });
  const preview = await json(`/datasets/${datasetId}/preview`, org);
  expect(preview.body.rows.map((r: any) => r.id)).toEqual([0, 1, 2, 3]);
}

/** Replace bindings of the job's Durable Object instance (its own env, as the platform gave it). */
async function withObjectEnv(stub: DurableObjectStub<JobDO>, patch: (e: Env) => Partial<Env>) {
  await runInDurableObject(stub, async (instance: JobDO) => {
    const self = instance as unknown as { env: Env };
    self.env = { ...self.env, ...patch(self.env) };
  });
}

describe("fault injection", () => {
  it("a queue message delivered twice at once ends the job once, its files written to the same keys", async () => {
    const org = await newOrg();
    const once = await undispatchedIngestJob(org);
    const single = wrappedBucket();
    await deliver(once.jobId, 1, single.bucket);

    const { jobId, datasetId } = await undispatchedIngestJob(org);
    const twice = wrappedBucket();
    const results = await Promise.all([deliver(jobId, 1, twice.bucket), deliver(jobId, 1, twice.bucket)]);
    expect(results.flatMap((r) => r.retryMessages)).toEqual([]);
    expect((await json(`/jobs/${jobId}`, org)).body.status).toBe("succeeded");
    // The redelivery takes the job over (at-least-once: the first consumer is presumed dead); the
    // first one's result is refused as stale, and both wrote the same objects, nothing more.
    expect([...twice.counts.keys].sort()).toEqual([...single.counts.keys].sort());
    const record = await env.DB.prepare("SELECT status, finished_at FROM jobs WHERE id = ?")
      .bind(jobId)
      .first<{ status: string; finished_at: string }>();
    expect(record).toMatchObject({ status: "succeeded" });
    await expectOneReadyVersion(org, datasetId);
  });

  it("an alarm firing twice restarts a silent job once", async () => {
    const org = await newOrg();
    const { stub, jobId, datasetId } = await undispatchedIngestJob(org);
    await stub.begin({ messageId: "lost" });
    const sends: unknown[] = [];
    await withObjectEnv(stub, (e) => ({
      JOBS_QUEUE: {
        send: async (m: unknown) => {
          sends.push(m);
          return e.JOBS_QUEUE.send(m);
        },
      } as unknown as Queue,
    }));
    await runInDurableObject(stub, async (instance: JobDO, state) => {
      const s: any = await state.storage.get("state");
      s.internal.lastHeartbeatMs = Date.now() - 3_600_000;
      await state.storage.put("state", s);
      (instance as any).cache = null;
    });
    await runDurableObjectAlarm(stub);
    await runDurableObjectAlarm(stub);
    expect(sends).toHaveLength(1);
    const job = await waitForJob(org, jobId);
    expect(job.status).toBe("succeeded");
    await expectOneReadyVersion(org, datasetId);
  });

  it("D1 failing one mirror write: the job ends once and D1 catches up", async () => {
    const org = await newOrg();
    const { stub, jobId, datasetId } = await undispatchedIngestJob(org);
    let failures = 0;
    await withObjectEnv(stub, (e) => ({
      DB: new Proxy(e.DB, {
        get(target, prop) {
          if ((prop === "batch" || prop === "prepare") && failures === 0) {
            failures++;
            return () => {
              throw new Error("D1 unavailable (injected)");
            };
          }
          const v = Reflect.get(target, prop);
          return typeof v === "function" ? v.bind(target) : v;
        },
      }),
    }));
    const result = await deliver(jobId, 1, env.BUCKET);
    expect(failures).toBe(1);
    expect(result.explicitAcks).toHaveLength(1);
    await runDurableObjectAlarm(stub); // retries a mirror still pending; nothing else
    const row = await env.DB.prepare("SELECT status FROM jobs WHERE id = ?").bind(jobId).first<{ status: string }>();
    expect(row?.status).toBe("succeeded");
    expect((await json(`/jobs/${jobId}`, org)).body.status).toBe("succeeded");
    await expectOneReadyVersion(org, datasetId);
  });

  it("R2 failing one write: the delivery is retried and the table stored once, whole", async () => {
    const org = await newOrg();
    const { jobId, datasetId } = await undispatchedIngestJob(org);
    const flaky = wrappedBucket(1);
    const first = await deliver(jobId, 1, flaky.bucket);
    expect(first.retryMessages).toHaveLength(1);
    expect((await json(`/jobs/${jobId}`, org)).body.status).toBe("queued");
    const second = await deliver(jobId, 2, flaky.bucket);
    expect(second.explicitAcks).toHaveLength(1);
    expect((await json(`/jobs/${jobId}`, org)).body.status).toBe("succeeded");
    await expectOneReadyVersion(org, datasetId);
  });
});
