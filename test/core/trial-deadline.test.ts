/** The watchdog's rule for a search trial (src/durable/trial-state.ts): a pure function of its state and the time. */
import { describe, expect, it } from "vitest";
import { TRIAL_DISPATCH_TIMEOUT_S, TRIAL_HEARTBEAT_TIMEOUT_S, TRIAL_MAX_SENDS } from "../../src/core/limits";
import { onTrialDeadline, type TrialState } from "../../src/durable/trial-state";

const t0 = 1_000_000;
const trial = (over: Partial<TrialState>): TrialState => ({
  trial: 4,
  spec: {},
  slot: 0,
  status: "running",
  sends: 1,
  sentAtMs: t0,
  beatAtMs: t0,
  message: null,
  ...over,
});

describe("a search trial's deadline", () => {
  it("waits while the instance reports", () => {
    expect(onTrialDeadline(trial({}), t0 + TRIAL_HEARTBEAT_TIMEOUT_S * 1000 - 1)).toEqual({ action: "wait" });
  });

  it("sends a trial again when its instance went silent", () => {
    expect(onTrialDeadline(trial({}), t0 + TRIAL_HEARTBEAT_TIMEOUT_S * 1000)).toEqual({ action: "resend" });
  });

  it("sends a trial again when no instance took it", () => {
    const queued = trial({ status: "queued", beatAtMs: null });
    expect(onTrialDeadline(queued, t0 + TRIAL_DISPATCH_TIMEOUT_S * 1000 - 1)).toEqual({ action: "wait" });
    expect(onTrialDeadline(queued, t0 + TRIAL_DISPATCH_TIMEOUT_S * 1000)).toEqual({ action: "resend" });
  });

  it("fails the trial alone after its last send", () => {
    const next = onTrialDeadline(trial({ sends: TRIAL_MAX_SENDS }), t0 + TRIAL_HEARTBEAT_TIMEOUT_S * 1000);
    expect(next.action).toBe("fail");
    expect(next.action === "fail" && next.message).toMatch(/^Trial 4 was sent 2 times and the trainer instance running it stopped answering/);
  });

  it("leaves ended trials alone", () => {
    for (const status of ["done", "failed", "canceled"] as const) expect(onTrialDeadline(trial({ status }), t0 + 1e9)).toEqual({ action: "wait" });
  });
});
