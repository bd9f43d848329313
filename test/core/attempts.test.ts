import { describe, expect, it } from "vitest";
import { type Failure, MAX_ATTEMPTS, onWatchdogDeadline, recordFailure, retryDelaySeconds, settleFailure } from "../../src/jobs/attempts";

describe("settling a failed attempt", () => {
  it("fails at once on a permanent error, with its message", () => {
    expect(settleFailure(1, { message: "bad label", permanent: true })).toEqual({ action: "fail", message: "bad label" });
  });

  it("retries a transient error with a growing back-off, then fails on the last attempt", () => {
    expect(settleFailure(1, { message: "blip", permanent: false })).toEqual({
      action: "retry",
      reason: "Attempt 1 failed (blip); retrying.",
      delaySeconds: 5,
    });
    expect(settleFailure(2, { message: "blip", permanent: false })).toMatchObject({ action: "retry", delaySeconds: 10 });
    expect(settleFailure(MAX_ATTEMPTS, { message: "blip", permanent: false })).toEqual({
      action: "fail",
      message: `The job failed after ${MAX_ATTEMPTS} attempts: blip`,
    });
    expect([1, 2, 3].map(retryDelaySeconds)).toEqual([5, 10, 20]);
  });

  it("records a retry on the job's object and redelivers only when the object took it", async () => {
    const calls: string[] = [];
    // the job's object settles on the attempts it counts (here: the token itself, no hand-backs)
    const obj = (requeued: boolean) => ({
      failAttempt: async (attempt: number, f: Failure) => {
        const s = settleFailure(attempt, f);
        if (s.action === "fail") return (calls.push(`fail ${s.message}`), { ok: true, retryInSeconds: null });
        calls.push(`requeue ${s.reason}`);
        return { ok: requeued, retryInSeconds: s.delaySeconds };
      },
    });
    const delays: number[] = [];
    expect(await recordFailure(obj(true), 1, { message: "x", permanent: false }, (d) => void delays.push(d))).toBe(true);
    expect(await recordFailure(obj(false), 2, { message: "y", permanent: false }, (d) => void delays.push(d))).toBe(false);
    expect(await recordFailure(obj(true), 1, { message: "z", permanent: true }, (d) => void delays.push(d))).toBe(true);
    expect(delays).toEqual([5]);
    expect(calls).toEqual(["requeue Attempt 1 failed (x); retrying.", "requeue Attempt 2 failed (y); retrying.", "fail z"]);
  });
});

describe("the watchdog", () => {
  it("fails an upload that was never completed", () => {
    expect(onWatchdogDeadline("waiting_for_upload", { dispatches: 0, attempts: 0 }, 120)).toMatchObject({ action: "fail" });
  });

  it("sends a queued job again until the dispatches are used up", () => {
    expect(onWatchdogDeadline("queued", { dispatches: 1, attempts: 0 }, 120)).toEqual({ action: "redispatch", note: null });
    expect(onWatchdogDeadline("queued", { dispatches: MAX_ATTEMPTS, attempts: 0 }, 120)).toMatchObject({ action: "fail" });
  });

  it("restarts a silent running job until the attempts are used up", () => {
    expect(onWatchdogDeadline("running", { dispatches: 1, attempts: 1 }, 120)).toEqual({
      action: "redispatch",
      note: "The worker stopped reporting for 120 s; restarting.",
    });
    expect(onWatchdogDeadline("running", { dispatches: 3, attempts: MAX_ATTEMPTS }, 120)).toEqual({
      action: "fail",
      message: `The worker stopped reporting for 120 s on attempt ${MAX_ATTEMPTS} of ${MAX_ATTEMPTS}.`,
    });
  });

  it("leaves finished jobs alone", () => {
    for (const s of ["succeeded", "failed", "canceled"] as const)
      expect(onWatchdogDeadline(s, { dispatches: 9, attempts: 9 }, 120)).toEqual({ action: "none" });
  });
});
