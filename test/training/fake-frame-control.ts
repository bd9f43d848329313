/**
 * A stand-in for the control routes that store a frame (a Node HTTP server), for the trainer's
 * upload tests: it records the parts, the completion and an abort.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import { requestBody } from "./request-body";

export const JOB = "00000000-0000-4000-8000-000000000001";
let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

export interface Seen {
  parts: Map<number, Buffer>;
  completed?: { parts: { part_number: number }[]; bytes: number };
  aborted: boolean;
}

/** Serves the frame routes; `cut(n, tries)` says whether to drop the connection on part n's try,
 * or "canceled" to answer it 409 as the routes do once the job is canceled. */
export async function fakeControl(cut: (part: number, tries: number) => boolean | "canceled"): Promise<{ url: string; seen: Seen }> {
  const seen: Seen = { parts: new Map(), aborted: false };
  const tries = new Map<number, number>();
  server = createServer(async (req, res) => {
    const path = new URL(req.url!, "http://x").pathname.replace(`/internal/jobs/${JOB}/`, "");
    const data = await requestBody(req);
    const reply = (status: number, json: unknown) => res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(json));
    if (path === "frame/uploads") return reply(200, { upload_id: "u1" });
    if (path === "frame/part-url") return reply(200, { url: null }); // no S3 API: parts through the route
    const part = /^frame\/parts\/(\d+)$/.exec(path);
    if (part) {
      const n = Number(part[1]);
      tries.set(n, (tries.get(n) ?? 0) + 1);
      const fault = cut(n, tries.get(n)!);
      if (fault === "canceled") return reply(409, { detail: "The job was canceled." });
      if (fault) return req.socket.destroy();
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
