/**
 * The trainer profiles an ingested frame while the frame is stored (src/container/ingest-job.ts):
 * a failed store ends the profile at the next column with the store's error, and a failed profile
 * waits for the store to settle before its error is thrown.
 */
import { describe, expect, it } from "vitest";
import { profileWhileStoring } from "../../src/container/ingest-job";
import { JobCanceledError } from "../../src/jobs/errors";
import type { Frame } from "../../src/ml/frame";

/** `n` numeric columns of a few rows. */
const frameOf = (n: number): Frame => ({
  rowCount: 4,
  columns: Array.from({ length: n }, (_, i) => ({ name: `c${i}`, kind: "numeric", storage: "numeric", values: Float64Array.of(1, 2, i, 4) })),
});

/** A promise settled from outside. */
function deferred() {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe("profileWhileStoring", () => {
  it("profiles every column while the store is pending, and answers the summary", async () => {
    const store = deferred();
    let turns = 0;
    const summary = await profileWhileStoring(frameOf(5), true, store.promise, async () => void turns++);
    expect(turns).toBe(5);
    expect(summary.rowCount).toBe(4);
    expect(summary.profile.map((p) => p.name)).toEqual(["c0", "c1", "c2", "c3", "c4"]);
  });

  it("stops at the next column once the store fails, with the store's error", async () => {
    const store = deferred();
    let turns = 0;
    const turn = async () => {
      turns++;
      if (turns === 2) store.reject(new JobCanceledError()); // canceled during the second column
      await new Promise((r) => setImmediate(r));
    };
    await expect(profileWhileStoring(frameOf(50), true, store.promise, turn)).rejects.toBeInstanceOf(JobCanceledError);
    expect(turns).toBe(2);
  });

  it("throws the profile's own error only after the store has settled", async () => {
    const store = deferred();
    let settled = false;
    const failing = profileWhileStoring(frameOf(3), true, store.promise, async () => {
      throw new Error("profile failed");
    });
    setTimeout(() => {
      settled = true;
      store.resolve();
    }, 50);
    await expect(failing).rejects.toThrow("profile failed");
    expect(settled).toBe(true);
  });
});
