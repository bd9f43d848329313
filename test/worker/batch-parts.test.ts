/**
 * The parts of a batch inference cut into row ranges, kept by the job's Durable Object as its
 * trials are (src/durable/trials.ts), over RPC: the rows each part's instance reports done, a
 * part sent again when its instance died, and parts told to stop with their job. (The test pool
 * has no trainer instances: the tests begin parts themselves.)
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { BatchPartSpec } from "../../src/container/wire";
import { TRIAL_HEARTBEAT_TIMEOUT_S } from "../../src/core/limits";
import type { JobDO } from "../../src/durable/job";
import { type TrialState, trialKey } from "../../src/durable/trial-state";
import { newOrg, undispatchedIngestJob } from "./helpers";

const part = (start: number, end: number): BatchPartSpec => ({ kind: "batch_part", start, end, model_version: { id: "v", version: 1 } });

async function runningJob() {
  const { stub } = await undispatchedIngestJob(await newOrg());
  const { attempt } = await stub.begin({ messageId: `parts-${crypto.randomUUID()}` });
  return { stub, attempt };
}

describe("a batch's parts in the job's object", () => {
  it("list the rows their instances report done", async () => {
    const { stub, attempt } = await runningJob();
    await stub.startTrial(attempt, 0, 0, part(0, 250_000));
    await stub.startTrial(attempt, 1, 1, part(250_000, 400_000));
    expect(await stub.beginTrial(attempt, 1, 1)).toEqual({ spec: part(250_000, 400_000), slot: 1 });
    expect(await stub.trialBeat(attempt, 1, 1, 50_000)).toBe(true);
    // a report without rows keeps the count
    expect(await stub.trialBeat(attempt, 1, 1)).toBe(true);
    expect(await stub.listTrials(attempt)).toEqual([
      { trial: 0, status: "queued", message: null },
      { trial: 1, status: "running", message: null, done: 50_000 },
    ]);
  });

  it("send a part again, its range unchanged and its rows counted from zero, when its instance died", async () => {
    const { stub, attempt } = await runningJob();
    await stub.startTrial(attempt, 0, 0, part(0, 1_000));
    await stub.beginTrial(attempt, 0, 1);
    await stub.trialBeat(attempt, 0, 1, 500);
    await runInDurableObject(stub, async (_: JobDO, state) => {
      const t = (await state.storage.get<TrialState>(trialKey(attempt, 0)))!;
      await state.storage.put(trialKey(attempt, 0), { ...t, beatAtMs: Date.now() - TRIAL_HEARTBEAT_TIMEOUT_S * 1000 - 1 });
    });
    expect(await stub.listTrials(attempt)).toEqual([{ trial: 0, status: "queued", message: null }]);
    expect(await stub.beginTrial(attempt, 0, 2)).toEqual({ spec: part(0, 1_000), slot: 0 });
  });

  it("are told to stop when the job is canceled", async () => {
    const { stub, attempt } = await runningJob();
    await stub.startTrial(attempt, 0, 0, part(0, 1_000));
    await stub.beginTrial(attempt, 0, 1);
    await stub.cancel();
    expect(await stub.trialBeat(attempt, 0, 1, 1_000)).toBe(false);
    expect(await stub.listTrials(attempt)).toBeNull();
  });

  it("are told to stop when their coordinator went silent and the watchdog restarted the job", async () => {
    const { stub, attempt } = await runningJob();
    await stub.startTrial(attempt, 0, 0, part(0, 1_000));
    await stub.beginTrial(attempt, 0, 1);
    // the parts' reports are not the job's heartbeat: only the coordinator's are
    await stub.trialBeat(attempt, 0, 1, 500);
    await runInDurableObject(stub, async (instance: JobDO, state) => {
      const s: any = await state.storage.get("state");
      s.internal.lastHeartbeatMs = Date.now() - 3_600_000;
      await state.storage.put("state", s);
      (instance as any).cache = null;
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stub.trialBeat(attempt, 0, 1, 1_000)).toBe(false);
  });
});
