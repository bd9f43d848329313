/**
 * The trainer's control client stores a frame's parts against a stand-in for the control routes
 * (a Node HTTP server, no S3 API: every part's URL is null, so parts go through the route): a
 * connection cut while sending a part is retried, and a part that keeps failing names the network
 * error's cause.
 */
import { describe, expect, it } from "vitest";
import { ControlClient } from "../../src/container/control-client";
import { fakeControl, JOB } from "./fake-frame-control";

const part = Uint8Array.from({ length: 1000 }, (_, i) => i % 251);

describe("ControlClient.putFramePart", () => {
  it("sends a part again when its connection is cut", async () => {
    const { url, seen } = await fakeControl((n, tries) => n === 2 && tries === 1);
    const c = new ControlClient({ baseUrl: url }, JOB, 1);
    expect(await c.putFramePart(await c.beginFrameUpload(), 2, part)).toEqual({ part: { part_number: 2, etag: "e2" }, straight: false });
    expect(seen.parts.get(2)?.equals(part)).toBe(true);
  });

  it("throws when a part keeps failing, and says why", async () => {
    const { url } = await fakeControl((n) => n === 2);
    const c = new ControlClient({ baseUrl: url }, JOB, 1);
    await expect(c.putFramePart(await c.beginFrameUpload(), 2, part)).rejects.toThrow(
      /control PUT frame\/parts\/2: fetch failed \(UND_ERR_SOCKET: other side closed\)/,
    );
  });
});
