/**
 * The trainer's control client stores a frame in parts against a stand-in for the control routes
 * (a Node HTTP server): a connection cut while sending a part is retried, the parts are completed
 * in order, and a failure aborts the upload and names the network error's cause.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ControlClient } from "../../src/container/control-client";
import { FRAME_PART_BYTES } from "../../src/storage/frame-parts";

const JOB = "00000000-0000-4000-8000-000000000001";
let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

interface Seen {
  parts: Map<number, Buffer>;
  completed?: { parts: { part_number: number }[]; bytes: number };
  aborted: boolean;
  created: boolean;
}

/** Serves the frame routes; `cut(n, tries)` says whether to drop the connection on part n's try. */
async function fakeControl(cut: (part: number, tries: number) => boolean): Promise<{ url: string; seen: Seen }> {
  const seen: Seen = { parts: new Map(), aborted: false, created: false };
  const tries = new Map<number, number>();
  const body = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  };
  server = createServer(async (req, res) => {
    const path = new URL(req.url!, "http://x").pathname.replace(`/internal/jobs/${JOB}/`, "");
    const data = await body(req);
    const reply = (status: number, json: unknown) => res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(json));
    if (path === "frame/uploads") return ((seen.created = true), reply(200, { upload_id: "u1" }));
    const part = /^frame\/parts\/(\d+)$/.exec(path);
    if (part) {
      const n = Number(part[1]);
      tries.set(n, (tries.get(n) ?? 0) + 1);
      if (cut(n, tries.get(n)!)) return req.socket.destroy();
      seen.parts.set(n, data);
      return reply(200, { part_number: n, etag: `e${n}` });
    }
    if (path === "frame/complete") return ((seen.completed = JSON.parse(data.toString())), reply(200, { bytes: 0 }));
    if (path === "frame/abort") return ((seen.aborted = true), reply(200, { ok: true }));
    reply(404, {});
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

/** A frame of two parts and a bit, as three uneven pieces. */
const whole = Uint8Array.from({ length: 2 * FRAME_PART_BYTES + 10 }, (_, i) => i % 251);
const pieces = [whole.subarray(0, 100), whole.subarray(100, FRAME_PART_BYTES + 7), whole.subarray(FRAME_PART_BYTES + 7)];

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

  it("says when the upload is begun: after its creation is answered, before the first part", async () => {
    const { url, seen } = await fakeControl(() => false);
    let atBegun: { created: boolean; parts: number } | undefined;
    await new ControlClient({ baseUrl: url }, JOB, 1).putFrame(whole.length, pieces, () => {
      atBegun = { created: seen.created, parts: seen.parts.size };
    });
    expect(atBegun).toEqual({ created: true, parts: 0 });
    expect(seen.parts.size).toBe(3);
  });

  it("aborts the upload when a part keeps failing, and says why", async () => {
    const { url, seen } = await fakeControl((n) => n === 2);
    const put = new ControlClient({ baseUrl: url }, JOB, 1).putFrame(whole.length, pieces);
    await expect(put).rejects.toThrow(/control PUT frame\/parts\/2: fetch failed \(UND_ERR_SOCKET: other side closed\)/);
    expect(seen.aborted).toBe(true);
    expect(seen.completed).toBeUndefined();
  });
});
