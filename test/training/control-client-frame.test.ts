/**
 * The trainer's control client stores a frame in parts against a stand-in for the control routes
 * (a Node HTTP server): a connection cut while sending a part is retried, the parts are completed
 * in order, and a failure aborts the upload and names the network error's cause.
 */
import { describe, expect, it } from "vitest";
import { ControlClient } from "../../src/container/control-client";
import { fakeControl, JOB, pieces, whole } from "./fake-frame-control";

describe("ControlClient.putFrame", () => {
  it("sends a part again when its connection is cut, and completes the parts in order", async () => {
    const { url, seen } = await fakeControl((n, tries) => n === 2 && tries === 1);
    await new ControlClient({ baseUrl: url }, JOB, 1).putFrame(whole.length, pieces);
    expect([...seen.parts.keys()].sort()).toEqual([1, 2, 3]);
    expect(Buffer.concat([1, 2, 3].map((n) => seen.parts.get(n)!)).equals(whole)).toBe(true);
    expect(seen.completed?.parts.map((p) => p.part_number)).toEqual([1, 2, 3]);
    expect(seen.completed?.bytes).toBe(whole.length);
    expect(seen.aborted).toBe(false);
  });

  it("aborts the upload when a part keeps failing, and says why", async () => {
    const { url, seen } = await fakeControl((n) => n === 2);
    const put = new ControlClient({ baseUrl: url }, JOB, 1).putFrame(whole.length, pieces);
    await expect(put).rejects.toThrow(/control PUT frame\/parts\/2: fetch failed \(UND_ERR_SOCKET: other side closed\)/);
    expect(seen.aborted).toBe(true);
    expect(seen.completed).toBeUndefined();
  });
});
