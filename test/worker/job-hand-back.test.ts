/**
 * A trainer that is stopping hands its attempt back (src/container/shutdown.ts): the job is queued
 * again at once and the attempt is not counted as a failure.
 */
import { describe, expect, it } from "vitest";
import { MAX_ATTEMPTS, retryDelaySeconds } from "../../src/jobs/attempts";
import { newOrg, undispatchedIngestJob } from "./helpers";

const transient = { message: "blip", permanent: false };

describe("handing an attempt back", () => {
  it("queues the running job again, with a note", async () => {
    const org = await newOrg();
    const { stub } = await undispatchedIngestJob(org);
    const { attempt } = await stub.begin({ messageId: "hb-1" });
    expect(await stub.handBack("The trainer is stopping", attempt)).toBe(true);
    const job = (await stub.get())!;
    expect(job.status).toBe("queued");
    expect(job.errorMessage).toBe("The trainer is stopping; restarting.");
  });

  it("does not count the handed-back attempt as a failure", async () => {
    const org = await newOrg();
    const { stub } = await undispatchedIngestJob(org);
    const first = await stub.begin({ messageId: "hb-2a" });
    await stub.handBack("The trainer is stopping", first.attempt);
    const second = await stub.begin({ messageId: "hb-2b" });
    expect(second.attempt).toBe(first.attempt + 1);
    // the first failure after a hand-back is attempt 1's: the first back-off, and a retry left
    expect(await stub.failAttempt(second.attempt, transient)).toEqual({ ok: true, retryInSeconds: retryDelaySeconds(1) });
    expect((await stub.get())!.errorMessage).toBe("Attempt 1 failed (blip); retrying.");
  });

  it("still fails the job after MAX_ATTEMPTS counted failures", async () => {
    const org = await newOrg();
    const { stub } = await undispatchedIngestJob(org);
    const handed = await stub.begin({ messageId: "hb-3-0" });
    await stub.handBack("The trainer is stopping", handed.attempt);
    let settled = { ok: false, retryInSeconds: null as number | null };
    for (let i = 1; i <= MAX_ATTEMPTS; i++) {
      const { attempt } = await stub.begin({ messageId: `hb-3-${i}` });
      settled = await stub.failAttempt(attempt, transient);
    }
    expect(settled).toEqual({ ok: true, retryInSeconds: null });
    expect((await stub.get())!.errorMessage).toBe(`The job failed after ${MAX_ATTEMPTS} attempts: blip`);
  });

  it("refuses a hand-back from a superseded attempt", async () => {
    const org = await newOrg();
    const { stub } = await undispatchedIngestJob(org);
    const first = await stub.begin({ messageId: "hb-4" });
    await stub.begin({ messageId: "hb-4" }); // a redelivery took over
    expect(await stub.handBack("The trainer is stopping", first.attempt)).toBe(false);
    expect((await stub.get())!.status).toBe("running");
  });
});
