/**
 * The SDK's fetch for streamed request bodies (uploads), over node:http: Node's own fetch keeps a
 * streamed body's chunks in memory until the request ends (sdk/src/stream-fetch.ts). Against a real
 * local HTTP server.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { noAnswer } from "../../sdk/src/repeat";
import { streamingFetch } from "../../sdk/src/stream-fetch";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handle);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** `total` bytes of zeros in 64 KiB chunks; `pulled()`: how many the reader has taken so far. */
function zeros(total: number) {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (pulled >= total) return c.close();
      const n = Math.min(65536, total - pulled);
      pulled += n;
      c.enqueue(new Uint8Array(n));
    },
  });
  return { stream, pulled: () => pulled };
}

const put = (url: string, body: ReadableStream<Uint8Array>, length: number) =>
  new Request(url, { method: "PUT", headers: { "Content-Length": String(length), "X-Test": "yes" }, body, duplex: "half" } as RequestInit);

describe("streamingFetch", () => {
  it("sends the body and headers, and answers the status, headers and body", async () => {
    const base = await serve(async (req, res) => {
      let bytes = 0;
      for await (const chunk of req) bytes += (chunk as Buffer).length;
      res
        .writeHead(201, { "Content-Type": "application/json", "Set-Cookie": ["a=1", "b=2"] })
        .end(JSON.stringify({ bytes, test: req.headers["x-test"] }));
    });
    const body = zeros(3_000_000);
    const res = await streamingFetch(put(`${base}/put`, body.stream, 3_000_000));
    expect(res.status).toBe(201);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    expect(await res.json()).toEqual({ bytes: 3_000_000, test: "yes" });
  });

  it("pulls the body only as the server reads it", async () => {
    let release!: () => void;
    const reading = new Promise<void>((r) => (release = r));
    const base = await serve(async (req, res) => {
      await reading;
      let bytes = 0;
      for await (const chunk of req) bytes += (chunk as Buffer).length;
      res.end(String(bytes));
    });
    const total = 64 * 1024 * 1024;
    const body = zeros(total);
    const answer = streamingFetch(put(`${base}/put`, body.stream, total));
    await new Promise((r) => setTimeout(r, 300));
    // the sockets' buffers and a few chunks are in flight, not the body
    expect(body.pulled()).toBeLessThan(total / 4);
    release();
    expect(await (await answer).text()).toBe(String(total));
  });

  it("keeps no chunk once it is sent: memory stays far below the body's size", async () => {
    let peak = 0;
    const base = await serve(async (req, res) => {
      let bytes = 0;
      for await (const chunk of req) {
        bytes += (chunk as Buffer).length;
        peak = Math.max(peak, process.memoryUsage().arrayBuffers);
      }
      res.end(String(bytes));
    });
    const total = 512 * 1024 * 1024;
    const res = await streamingFetch(put(`${base}/put`, zeros(total).stream, total));
    expect(await res.text()).toBe(String(total));
    // Node's fetch holds every chunk until the end: the whole 512 MB
    expect(peak).toBeLessThan(total / 4);
  });

  it("answers a 204 with no body", async () => {
    const base = await serve((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(204).end());
    });
    const res = await streamingFetch(put(`${base}/put`, zeros(10).stream, 10));
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
  });

  it("answers a refusal sent before the body was read", async () => {
    const base = await serve((_req, res) => {
      res.writeHead(413, { Connection: "close" }).end("too large");
    });
    const total = 64 * 1024 * 1024;
    const res = await streamingFetch(put(`${base}/put`, zeros(total).stream, total));
    expect(res.status).toBe(413);
    expect(await res.text()).toBe("too large");
  });

  it("fails a refused connection with node's code: the client knows it was never sent", async () => {
    const base = await serve(() => {});
    await new Promise((r) => servers.pop()!.close(r));
    const error = await streamingFetch(put(`${base}/put`, zeros(10).stream, 10)).catch((e: unknown) => e);
    expect(noAnswer(error)).toEqual({ kind: "unsent", code: "ECONNREFUSED" });
  });
});
