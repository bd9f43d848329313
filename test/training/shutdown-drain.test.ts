/**
 * A stopping trainer (SIGTERM) hands back what still runs after the grace period: a job's attempt
 * as a whole, a search's trial on its own. The control client here only records the calls (the
 * routes behind it are the Worker's, tested there: test/worker/search-trials.test.ts).
 */
import { createServer } from "node:http";
import { describe, expect, it } from "vitest";
import type { ControlClient } from "../../src/container/control-client";
import { drain, type RunningJob } from "../../src/container/shutdown";

function recordingClient(jobId: string, calls: string[]) {
  return {
    jobId,
    attempt: 1,
    handBack: async () => (calls.push(`job ${jobId}`), true),
    handBackTrial: async (trial: number, run: number) => (calls.push(`job ${jobId} trial ${trial} run ${run}`), true),
  } as unknown as ControlClient;
}

const never = new Promise<void>(() => {});

describe("drain", () => {
  it("hands back a running job's attempt and a running trial, each by its own route", async () => {
    const calls: string[] = [];
    const server = createServer().listen(0);
    const work: RunningJob[] = [
      { client: recordingClient("a", calls), done: never },
      { client: recordingClient("b", calls), trial: { trial: 3, run: 2 }, done: never },
    ];
    await drain(server, () => work, 0);
    expect(calls.sort()).toEqual(["job a", "job b trial 3 run 2"]);
    expect(server.listening).toBe(false);
  });

  it("hands back nothing that finished within the grace period", async () => {
    const calls: string[] = [];
    const server = createServer().listen(0);
    // the trial ends 20 ms in, and leaves the running list as the server's own does
    let running: RunningJob[] = [];
    const done = new Promise<void>((r) => setTimeout(r, 20)).then(() => {
      running = [];
    });
    running = [{ client: recordingClient("c", calls), trial: { trial: 0, run: 1 }, done }];
    await drain(server, () => running, 5000);
    expect(calls).toEqual([]);
  });
});
