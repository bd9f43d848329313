/** A read of a job recorded after its answer waits for the record, only as long as it may come. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FINISHED_JOB_RECORD_WAIT_MS } from "../../src/core/limits";
import { awaitFinishedJob } from "../../src/jobs/finished-jobs";
import { parseJobId, publicJobId, writtenBehindAt, writtenBehindJobId } from "../../src/jobs/ids";

describe("ids of jobs recorded after their answer", () => {
  it("carry the millisecond they were made at, through the public form too", () => {
    const id = writtenBehindJobId(1_790_000_000_123);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(writtenBehindAt(parseJobId(publicJobId(id))!)).toBe(1_790_000_000_123);
  });

  it("are told apart from the random ids of other jobs", () => {
    expect(writtenBehindAt(crypto.randomUUID())).toBeNull();
  });
});

describe("awaitFinishedJob", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** A read that finds the record from the `n`th call on (never when n is 0), counting calls. */
  const readFoundFrom = (n: number) => {
    const read = vi.fn(async () => (n > 0 && read.mock.calls.length >= n ? { id: "found" } : null));
    return read;
  };

  it("reads again until the record has landed", async () => {
    const read = readFoundFrom(4);
    const found = awaitFinishedJob(writtenBehindJobId(), read);
    await vi.runAllTimersAsync();
    expect(await found).toEqual({ id: "found" });
    expect(read).toHaveBeenCalledTimes(4);
  });

  it("gives up once the record would have landed", async () => {
    const made = Date.now();
    const read = readFoundFrom(0);
    const found = awaitFinishedJob(writtenBehindJobId(made), read);
    await vi.runAllTimersAsync();
    expect(await found).toBeNull();
    expect(Date.now() - made).toBe(FINISHED_JOB_RECORD_WAIT_MS);
    expect(read.mock.calls.length).toBeLessThan(30);
  });

  it("does not wait for another kind of job, nor for an old one", async () => {
    for (const id of [crypto.randomUUID(), writtenBehindJobId(Date.now() - FINISHED_JOB_RECORD_WAIT_MS - 1)]) {
      const read = readFoundFrom(0);
      expect(await awaitFinishedJob(id, read)).toBeNull();
      expect(read).toHaveBeenCalledTimes(1);
    }
  });
});
