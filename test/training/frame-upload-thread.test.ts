/**
 * The trainer stores an ingest's frame from a worker thread (src/container/frame-upload-thread.ts)
 * while its main thread computes the profile: the parts arrive whole and in order, the frame's own
 * arrays stay usable (raw columns are copied, encoded pieces moved), and a failure comes back to
 * the main thread as the same error, the upload aborted.
 */
import { describe, expect, it } from "vitest";
import { ControlClient } from "../../src/container/control-client";
import { storeFrame } from "../../src/container/frame-upload-thread";
import { JobCanceledError } from "../../src/jobs/errors";
import type { Frame } from "../../src/ml/frame";
import { FRAME_PART_BYTES } from "../../src/storage/frame-parts";
import { fakeControl, JOB } from "./fake-frame-control";

/** A frame whose one raw column is the middle of the upload, between two encoded pieces. */
function frameAndPieces() {
  const values = Float64Array.from({ length: FRAME_PART_BYTES / 8 + 100 }, (_, i) => i * 0.5);
  const frame: Frame = { rowCount: values.length, columns: [{ name: "x", kind: "numeric", storage: "numeric", values }] };
  const head = Uint8Array.from({ length: 1000 }, (_, i) => i % 7);
  const tail = Uint8Array.from({ length: FRAME_PART_BYTES }, (_, i) => i % 13);
  const raw = new Uint8Array(values.buffer);
  const chunks = [head, raw, tail];
  const whole = new Uint8Array(head.length + raw.length + tail.length);
  whole.set(head, 0);
  whole.set(raw, head.length);
  whole.set(tail, head.length + raw.length);
  return { frame, values, chunks, whole };
}

describe("storeFrame", () => {
  it("stores the frame's parts from another thread, moving encoded pieces and copying the frame's own arrays", async () => {
    const { url, seen } = await fakeControl(() => false);
    const { frame, values, chunks, whole } = frameAndPieces();
    await storeFrame(new ControlClient({ baseUrl: url }, JOB, 1), frame, whole.length, chunks);
    expect(seen.completed?.parts.map((p) => p.part_number)).toEqual([1, 2, 3]);
    expect(Buffer.concat([1, 2, 3].map((n) => seen.parts.get(n)!)).equals(whole)).toBe(true);
    expect(values.length).toBe(frame.rowCount); // still readable: copied, not moved
    expect(values[7]).toBe(3.5);
    expect(chunks[0].byteLength).toBe(0); // the encoded piece was moved to the thread
  });

  it("keeps the upload on the main thread when the frame's raw columns are more than it may copy", async () => {
    const { url, seen } = await fakeControl(() => false);
    const { frame, chunks, whole } = frameAndPieces();
    await storeFrame(new ControlClient({ baseUrl: url }, JOB, 1), frame, whole.length, chunks, chunks[1].byteLength - 1);
    expect(Buffer.concat([1, 2, 3].map((n) => seen.parts.get(n)!)).equals(whole)).toBe(true);
    expect(chunks[0].byteLength).toBe(1000); // nothing moved to a thread
  });

  it("rejects with the thread's error and aborts the upload when a part keeps failing", async () => {
    const { url, seen } = await fakeControl((n) => n === 2);
    const { frame, chunks, whole } = frameAndPieces();
    const put = storeFrame(new ControlClient({ baseUrl: url }, JOB, 1), frame, whole.length, chunks);
    await expect(put).rejects.toThrow(/control PUT frame\/parts\/2: fetch failed \(UND_ERR_SOCKET: other side closed\)/);
    expect(seen.aborted).toBe(true);
    expect(seen.completed).toBeUndefined();
  });

  it("rejects with JobCanceledError when the job is canceled while the thread uploads", async () => {
    const { url, seen } = await fakeControl((n) => (n === 2 ? "canceled" : false));
    const { frame, chunks, whole } = frameAndPieces();
    const put = storeFrame(new ControlClient({ baseUrl: url }, JOB, 1), frame, whole.length, chunks);
    await expect(put).rejects.toBeInstanceOf(JobCanceledError);
    expect(seen.parts.has(3)).toBe(false);
    expect(seen.completed).toBeUndefined();
  });
});
