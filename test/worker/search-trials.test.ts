/**
 * The trials of a job's model search, kept by the job's Durable Object (src/durable/trials.ts),
 * over RPC. (The test pool has no trainer instances: its consumer leaves trial messages alone, so
 * the tests begin trials themselves.)
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { TRIAL_HEARTBEAT_TIMEOUT_S, TRIAL_MAX_SENDS } from "../../src/core/limits";
import { type TrialState, trialKey } from "../../src/durable/trial-state";
import { jobObject } from "../../src/jobs/job-object";
import type { JobRecord } from "../../src/jobs/types";
import { searchDataKey, trialOutcomeKey } from "../../src/storage/keys";
import { newOrg, undispatchedIngestJob } from "./helpers";

const spec = { trial: 0, params: {}, budgetMs: 1000, floorMs: null, pruneAbove: null };

async function runningJob() {
  const org = await newOrg();
  const { stub, jobId } = await undispatchedIngestJob(org);
  const { attempt } = await stub.begin({ messageId: `trials-${crypto.randomUUID()}` });
  return { stub, attempt, org, jobId };
}

/** A running train job (the ingest job's record under a new id and type), begun by hand: no consumer takes it. */
async function runningTrainJob() {
  const org = await newOrg();
  const { stub: ingest } = await undispatchedIngestJob(org);
  const jobId = crypto.randomUUID();
  const stub = jobObject(env.JOB, jobId);
  const record = (await ingest.get()) as JobRecord;
  await stub.create({ ...record, id: jobId, type: "train", status: "queued" });
  const { attempt } = await stub.begin({ messageId: `trials-${crypto.randomUUID()}` });
  return { stub, attempt, org, jobId };
}

describe("a search's trials in the job's object", () => {
  it("are sent queued, begun once with their spec and slot, then running", async () => {
    const { stub, attempt } = await runningJob();
    expect(await stub.startTrial(attempt, 0, 1, spec)).toBe(true);
    expect(await stub.listTrials(attempt)).toEqual([{ trial: 0, status: "queued", message: null }]);
    expect(await stub.beginTrial(attempt, 0, 1)).toEqual({ spec, slot: 1 });
    // a second delivery of the same message does not run it twice
    expect((await stub.beginTrial(attempt, 0, 1)).spec).toBeNull();
    expect((await stub.listTrials(attempt))![0].status).toBe("running");
  });

  it("sending a trial twice keeps the first", async () => {
    const { stub, attempt } = await runningJob();
    await stub.startTrial(attempt, 3, 0, spec);
    await stub.beginTrial(attempt, 3, 1);
    await stub.startTrial(attempt, 3, 0, spec);
    expect((await stub.listTrials(attempt))![0]).toMatchObject({ trial: 3, status: "running" });
  });

  it("keep running while their instance reports, and end done or failed with a message", async () => {
    const { stub, attempt } = await runningJob();
    await stub.startTrial(attempt, 0, 0, spec);
    await stub.startTrial(attempt, 1, 1, spec);
    await stub.beginTrial(attempt, 0, 1);
    await stub.beginTrial(attempt, 1, 1);
    expect(await stub.trialBeat(attempt, 0, 1)).toBe(true);
    expect(await stub.settleTrial(attempt, 0, 1, "done", null)).toBe(true);
    expect(await stub.settleTrial(attempt, 1, 1, "failed", "out of memory")).toBe(true);
    expect(await stub.listTrials(attempt)).toEqual([
      { trial: 0, status: "done", message: null },
      { trial: 1, status: "failed", message: "out of memory" },
    ]);
    // a trial that ended stays ended
    expect(await stub.settleTrial(attempt, 0, 1, "failed", "late")).toBe(false);
    expect(await stub.trialBeat(attempt, 0, 1)).toBe(false);
  });

  it("are canceled when the search closes: their instances are told to stop", async () => {
    const { stub, attempt } = await runningJob();
    await stub.startTrial(attempt, 0, 0, spec);
    await stub.startTrial(attempt, 1, 1, spec);
    await stub.beginTrial(attempt, 0, 1);
    expect(await stub.closeSearch(attempt)).toBe(2);
    expect(await stub.trialBeat(attempt, 0, 1)).toBe(false);
    expect((await stub.listTrials(attempt))!.map((t) => t.status)).toEqual(["canceled", "canceled"]);
  });

  it("leave no files once the job ends: every attempt's, closed or not", async () => {
    const { stub, attempt, org, jobId } = await runningTrainJob();
    const keys = [
      searchDataKey(org.orgId, jobId, attempt - 1),
      trialOutcomeKey(org.orgId, jobId, attempt, 0),
      searchDataKey(org.orgId, jobId, attempt),
    ];
    for (const key of keys) await env.BUCKET.put(key, "bytes");
    await stub.cancel();
    for (const key of keys) expect(await env.BUCKET.head(key), key).toBeNull();
  });

  it("stop with the job: a canceled job's trials are told to stop, and no trial is sent", async () => {
    const { stub, attempt } = await runningJob();
    await stub.startTrial(attempt, 0, 0, spec);
    await stub.beginTrial(attempt, 0, 1);
    await stub.cancel();
    expect(await stub.trialBeat(attempt, 0, 1)).toBe(false);
    expect(await stub.startTrial(attempt, 1, 0, spec)).toBe(false);
    expect(await stub.listTrials(attempt)).toBeNull();
  });

  it("belong to their attempt: a superseded attempt's calls are refused", async () => {
    const { stub, attempt } = await runningJob();
    expect(await stub.startTrial(attempt + 1, 0, 0, spec)).toBe(false);
    expect(await stub.listTrials(attempt + 1)).toBeNull();
    expect(await stub.listTrials(attempt)).toEqual([]);
  });

  it("send a trial handed back by a stopping instance again at once, the send not counted", async () => {
    const { stub, attempt } = await runningJob();
    await stub.startTrial(attempt, 0, 0, spec);
    await stub.beginTrial(attempt, 0, 1);
    expect(await stub.handBackTrial(attempt, 0, 1)).toBe(true);
    expect(await stub.trialBeat(attempt, 0, 1)).toBe(false);
    expect((await stub.listTrials(attempt))![0].status).toBe("queued");
    const sends = await runInDurableObject(
      stub,
      async (_: unknown, state: DurableObjectState) => (await state.storage.get<TrialState>(trialKey(attempt, 0)))!.sends,
    );
    expect(sends).toBe(1);
    // begun again by the next instance, as its second run; a trial no longer running is not handed back
    expect((await stub.beginTrial(attempt, 0, 2)).spec).toEqual(spec);
    await stub.settleTrial(attempt, 0, 2, "done", null);
    expect(await stub.handBackTrial(attempt, 0, 2)).toBe(false);
  });

  it("refuse the calls of a run sent again: the instance that went silent is told to stop, and cannot end the new run", async () => {
    const { stub, attempt } = await runningJob();
    await stub.startTrial(attempt, 0, 0, spec);
    await stub.beginTrial(attempt, 0, 1);
    await runInDurableObject(stub, async (_: unknown, state: DurableObjectState) => {
      const t = (await state.storage.get<TrialState>(trialKey(attempt, 0)))!;
      await state.storage.put(trialKey(attempt, 0), { ...t, beatAtMs: Date.now() - TRIAL_HEARTBEAT_TIMEOUT_S * 1000 - 1 });
    });
    await stub.listTrials(attempt); // the watchdog sends it again: run 2
    // the first run's late message is not begun again; the second's is
    expect((await stub.beginTrial(attempt, 0, 1)).spec).toBeNull();
    expect((await stub.beginTrial(attempt, 0, 2)).spec).toEqual(spec);
    // the first run's instance woke up: its beat, hand-back and failure are refused
    expect(await stub.trialBeat(attempt, 0, 1)).toBe(false);
    expect(await stub.handBackTrial(attempt, 0, 1)).toBe(false);
    expect(await stub.settleTrial(attempt, 0, 1, "failed", "out of memory")).toBe(false);
    expect(await stub.trialBeat(attempt, 0, 2)).toBe(true);
    expect(await stub.settleTrial(attempt, 0, 2, "done", null)).toBe(true);
    expect((await stub.listTrials(attempt))![0]).toMatchObject({ status: "done", message: null });
  });

  it("sends a trial again when its instance went silent, then fails it alone", async () => {
    const { stub, attempt } = await runningJob();
    await stub.startTrial(attempt, 0, 0, spec);
    await stub.startTrial(attempt, 1, 1, spec);
    await stub.beginTrial(attempt, 0, 1);
    await stub.beginTrial(attempt, 1, 1);
    // trial 0's instance last reported longer ago than the heartbeat timeout (its instance died)
    const silence = async () =>
      runInDurableObject(stub, async (_: unknown, state: DurableObjectState) => {
        const t = (await state.storage.get<TrialState>(trialKey(attempt, 0)))!;
        await state.storage.put(trialKey(attempt, 0), { ...t, beatAtMs: Date.now() - TRIAL_HEARTBEAT_TIMEOUT_S * 1000 - 1 });
      });
    await silence();
    expect(await stub.listTrials(attempt)).toEqual([
      { trial: 0, status: "queued", message: null },
      { trial: 1, status: "running", message: null },
    ]);
    for (let send = 2; send <= TRIAL_MAX_SENDS; send++) {
      await stub.beginTrial(attempt, 0, send);
      await silence();
    }
    const [lost, other] = (await stub.listTrials(attempt))!;
    expect(lost.status).toBe("failed");
    expect(lost.message).toMatch(/stopped answering/);
    expect(other.status).toBe("running");
  });
});
