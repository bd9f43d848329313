/**
 * The trainer stores an ingest's frame from a worker thread as the file is read
 * (src/container/frame-stream-thread.ts), against a stand-in for the control routes: the parts,
 * joined, are the frame the reader built; a part that cannot be stored, or a canceled job, stops
 * the read with that error and aborts the upload.
 */
import { describe, expect, it } from "vitest";
import { ControlClient } from "../../src/container/control-client";
import { FrameStreamThread } from "../../src/container/frame-stream-thread";
import { decodeFrame } from "../../src/ingest/codec";
import { readCsv } from "../../src/ingest/csv";
import { StreamedFrame } from "../../src/ingest/streamed-frame";
import { JobCanceledError } from "../../src/jobs/errors";
import { expectSameFrame, streamOf, utf8 } from "../ingest/helpers";
import { seededRandom } from "../seeded-random";
import { fakeControl, JOB } from "./fake-frame-control";

function csvBytes(rows: number): Uint8Array {
  const r = seededRandom(8);
  const lines = ["x,cat,flag"];
  for (let i = 0; i < rows; i++) lines.push(`${(r() * 1000).toFixed(2)},c${Math.floor(r() * 40)},${r() < 0.5 ? "yes" : "no"}`);
  return utf8(`${lines.join("\n")}\n`);
}

/** Reads `bytes` with the frame stored by a FrameStreamThread in parts of `partBytes`. */
async function ingest(url: string, bytes: Uint8Array, partBytes: number) {
  const sink = new FrameStreamThread(new ControlClient({ baseUrl: url }, JOB, 1), partBytes);
  try {
    const streamed = new StreamedFrame(sink, 4096);
    const { frame } = await readCsv(streamOf(bytes, 32768), { onRows: (rows, final) => streamed.checkpoint(rows, final) });
    return { frame, bytes: await streamed.finish(frame) };
  } catch (e) {
    await sink.abort();
    throw e;
  } finally {
    await sink.close();
  }
}

describe("FrameStreamThread", () => {
  it("stores the frame in parts, numbered in order, that join into the frame the reader built", async () => {
    const { url, seen } = await fakeControl(() => false);
    const { frame, bytes } = await ingest(url, csvBytes(40000), 16 * 1024);
    const numbers = seen.completed!.parts.map((p) => p.part_number);
    expect(numbers.length).toBeGreaterThan(3);
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    expect(seen.completed?.bytes).toBe(bytes);
    const joined = Buffer.concat(numbers.map((n) => seen.parts.get(n)!));
    expect(joined.length).toBe(bytes);
    expectSameFrame(decodeFrame(new Uint8Array(joined)), frame, "stored from the thread");
    expect(seen.aborted).toBe(false);
  });

  it("stops the read with a part's network error and aborts the upload", async () => {
    const { url, seen } = await fakeControl((n) => n === 2);
    await expect(ingest(url, csvBytes(40000), 64 * 1024)).rejects.toThrow(/control PUT frame\/parts\/2: fetch failed/);
    expect(seen.completed).toBeUndefined();
    await expect.poll(() => seen.aborted).toBe(true);
  });

  it("stops the read of a canceled job (a part answered 409) with JobCanceledError, nothing completed", async () => {
    const { url, seen } = await fakeControl((n) => (n === 2 ? "canceled" : false));
    await expect(ingest(url, csvBytes(40000), 64 * 1024)).rejects.toBeInstanceOf(JobCanceledError);
    expect(seen.completed).toBeUndefined();
    expect(seen.parts.has(3)).toBe(false);
  });
});
