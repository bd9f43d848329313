/**
 * The trainer's control client takes the presigned R2 URLs the Worker hands out, and the control
 * routes when it hands out none, against a stand-in (a Node HTTP server) for both the routes and
 * the bucket's S3 API: source files and the frame read from their URL, frame parts PUT to the URL
 * signed for each (their ETags, as S3 quotes them, completed in order); a part R2 refuses fails with R2's reason
 * and aborts the upload; a 5xx from R2 is tried again.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ControlClient } from "../../src/container/control-client";
import { encodeFrame } from "../../src/ingest/columnar";
import { readCsv } from "../../src/ingest/csv";
import { FRAME_PART_BYTES } from "../../src/storage/frame-parts";
import { requestBody } from "./request-body";

const JOB = "00000000-0000-4000-8000-000000000003";
let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

interface Seen {
  /** Every request, as "METHOD path" (the S3 ones under /s3/). */
  requests: string[];
  parts: Map<number, Buffer>;
  completed?: { upload_id: string; parts: { part_number: number; etag: string }[]; bytes: number };
  aborted: boolean;
}

interface Options {
  /** Hand out URLs (the Worker with the S3 API configured) or not (the test pool's Worker). */
  direct: boolean;
  /** Answers S3 gives to an UploadPart of part n on its `tries`-th try, instead of storing it. */
  partAnswer?: (n: number, tries: number) => { status: number; body: string } | null;
  source?: Uint8Array;
  frame?: Uint8Array;
  /** The job was canceled: reports answer so. */
  canceled?: boolean;
  /** Answer a Range request with the whole file (200), as a server without range support would. */
  ignoreRange?: boolean;
}

async function fakeWorkerAndR2(opts: Options): Promise<{ url: string; seen: Seen }> {
  const seen: Seen = { requests: [], parts: new Map(), aborted: false };
  const tries = new Map<number, number>();
  server = createServer(async (req, res) => {
    const url = new URL(req.url!, "http://x");
    const data = await requestBody(req);
    seen.requests.push(`${req.method} ${url.pathname.replace(`/internal/jobs/${JOB}/`, "")}`);
    const base = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
    const reply = (status: number, json: unknown) => res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(json));
    const bytes = (b: Uint8Array) => {
      // `Range: bytes=first-last`, as R2 (and the control route) answer it
      const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? "");
      if (range) seen.requests.push(`Range ${req.headers.range}`);
      if (!range || opts.ignoreRange) return res.writeHead(200, { "Content-Length": String(b.length) }).end(b);
      const [first, last] = [Number(range[1]), Math.min(Number(range[2]), b.length - 1)];
      res
        .writeHead(206, { "Content-Length": String(last - first + 1), "Content-Range": `bytes ${first}-${last}/${b.length}` })
        .end(b.subarray(first, last + 1));
    };
    const part = /^\/s3\/bucket\/frame$/.test(url.pathname) && url.searchParams.get("partNumber");
    if (part) {
      const n = Number(part);
      expect(url.searchParams.get("uploadId")).toBe("u1");
      tries.set(n, (tries.get(n) ?? 0) + 1);
      const answer = opts.partAnswer?.(n, tries.get(n)!);
      if (answer) return res.writeHead(answer.status, { "Content-Type": "application/xml" }).end(answer.body);
      seen.parts.set(n, data);
      return res.writeHead(200, { ETag: `"etag-${n}"` }).end();
    }
    if (url.pathname === "/s3/bucket/source.csv") return bytes(opts.source!);
    if (url.pathname === "/s3/bucket/frame") return bytes(opts.frame!);
    const path = url.pathname.replace(`/internal/jobs/${JOB}/`, "");
    if (path === "sources/0") return bytes(opts.source!);
    if (path === "frame") return bytes(opts.frame!);
    if (path === "frame/location") return reply(200, { url: opts.direct ? `${base}/s3/bucket/frame?X-Amz-Signature=x` : null, bytes: 0 });
    if (path === "frame/uploads") return reply(200, { upload_id: "u1" });
    if (path === "frame/part-url") {
      const { part_number } = JSON.parse(data.toString());
      return reply(200, { url: opts.direct ? `${base}/s3/bucket/frame?partNumber=${part_number}&uploadId=u1&X-Amz-Signature=x` : null });
    }
    if (path === "frame/parts/1") return (seen.parts.set(1, data), reply(200, { part_number: 1, etag: "route-etag" }));
    if (path === "frame/complete") return ((seen.completed = JSON.parse(data.toString())), reply(200, { bytes: 0 }));
    if (path === "frame/abort") return ((seen.aborted = true), reply(200, { ok: true }));
    if (path === "report") return reply(200, { canceled: opts.canceled ?? false });
    reply(404, {});
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

const client = (url: string) => new ControlClient({ baseUrl: url, secret: "s" }, JOB, 1);
const readAll = async (s: ReadableStream<Uint8Array>) => Buffer.from(await new Response(s).arrayBuffer());

/** A frame of two parts and a bit. */
const whole = Uint8Array.from({ length: 2 * FRAME_PART_BYTES + 10 }, (_, i) => i % 251);

/** A frame stored part by part as the trainer's upload thread does (../../src/container/frame-stream-thread). */
async function putWhole(c: ControlClient, bytes: Uint8Array) {
  const uploadId = await c.beginFrameUpload();
  const parts = [];
  try {
    for (let at = 0, n = 1; at < bytes.length; at += FRAME_PART_BYTES, n++) {
      parts.push((await c.putFramePart(uploadId, n, bytes.subarray(at, at + FRAME_PART_BYTES))).part);
    }
    await c.completeFrameUpload(uploadId, parts, bytes.length);
  } catch (e) {
    await c.abortFrameUpload(uploadId);
    throw e;
  }
}

const SIGNATURE_MISMATCH = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided.</Message></Error>`;

describe("ControlClient with presigned R2 URLs", () => {
  it("reads a source file from its URL when the task gives one, else from the route", async () => {
    const source = new TextEncoder().encode("a,b\n1,2\n");
    const { url, seen } = await fakeWorkerAndR2({ direct: true, source });
    expect((await readAll(await client(url).openSource(0, `${url}/s3/bucket/source.csv?X-Amz-Signature=x`))).equals(source)).toBe(true);
    expect((await readAll(await client(url).openSource(0))).equals(source)).toBe(true);
    expect(seen.requests).toEqual(["GET /s3/bucket/source.csv", "GET sources/0"]);
  });

  it("reads a range of a source file (a Parquet footer) from its URL or the route, with a Range header", async () => {
    const source = Uint8Array.from({ length: 1000 }, (_, i) => i % 251);
    const { url, seen } = await fakeWorkerAndR2({ direct: true, source });
    const fromR2 = await client(url).readSourceRange(0, 900, 1000, `${url}/s3/bucket/source.csv?X-Amz-Signature=x`);
    const fromRoute = await client(url).readSourceRange(0, 4, 10);
    expect(Buffer.from(fromR2).equals(Buffer.from(source.subarray(900)))).toBe(true);
    expect(Buffer.from(fromRoute).equals(Buffer.from(source.subarray(4, 10)))).toBe(true);
    expect(seen.requests).toEqual(["GET /s3/bucket/source.csv", "Range bytes=900-999", "GET sources/0", "Range bytes=4-9"]);
  });

  it("refuses a whole file answered to a range request instead of reading it as the range", async () => {
    const { url } = await fakeWorkerAndR2({ direct: true, source: new Uint8Array(1000), ignoreRange: true });
    await expect(client(url).readSourceRange(0, 900, 1000, `${url}/s3/bucket/source.csv?X-Amz-Signature=x`)).rejects.toThrow(
      /could not read bytes 900–1000 of uploaded file 0: HTTP 200 \(the range was ignored\)/,
    );
    await expect(client(url).readSourceRange(0, 900, 1000)).rejects.toThrow(/HTTP 200 \(the range was ignored\)/);
  });

  it("names R2's refusal of a source URL", async () => {
    const { url } = await fakeWorkerAndR2({ direct: true });
    await expect(client(url).openSource(0, `${url}/s3/bucket/gone.csv`)).rejects.toThrow(/could not read uploaded file 0 from R2: HTTP 404/);
  });

  it("PUTs the parts to the URLs signed for them and completes them in order with their ETags, nothing through the part route", async () => {
    const { url, seen } = await fakeWorkerAndR2({ direct: true });
    await putWhole(client(url), whole);
    expect(Buffer.concat([1, 2, 3].map((n) => seen.parts.get(n)!)).equals(whole)).toBe(true);
    expect(seen.completed).toEqual({
      attempt: 1,
      upload_id: "u1",
      bytes: whole.length,
      parts: [1, 2, 3].map((n) => ({ part_number: n, etag: `"etag-${n}"` })),
    });
    expect(seen.requests.filter((r) => r.includes("frame/parts"))).toEqual([]);
    expect(seen.aborted).toBe(false);
  });

  it("without URLs, PUTs the parts through the control route as before", async () => {
    const { url, seen } = await fakeWorkerAndR2({ direct: false });
    await putWhole(client(url), new Uint8Array(10));
    expect(seen.requests).toEqual(["POST frame/uploads", "POST frame/part-url", "PUT frame/parts/1", "POST frame/complete"]);
    expect(seen.completed?.parts).toEqual([{ part_number: 1, etag: "route-etag" }]);
  });

  it("fails a part R2 refuses with R2's reason, sends no further part, and aborts the upload", async () => {
    const { url, seen } = await fakeWorkerAndR2({ direct: true, partAnswer: (n) => (n === 1 ? { status: 403, body: SIGNATURE_MISMATCH } : null) });
    const put = putWhole(client(url), whole);
    await expect(put).rejects.toThrow(
      `R2 refused part 1 of the frame (${FRAME_PART_BYTES} bytes): HTTP 403 SignatureDoesNotMatch: The request signature we calculated does not match`,
    );
    expect(seen.aborted).toBe(true);
    expect(seen.completed).toBeUndefined();
    // a refusal is not retried (the same bytes would be refused again), and no further part is sent
    expect(seen.requests.filter((r) => r === "PUT /s3/bucket/frame")).toHaveLength(1);
    expect(seen.parts.has(3)).toBe(false);
  });

  it("sends a part again when R2 answers 5xx", async () => {
    const { url, seen } = await fakeWorkerAndR2({
      direct: true,
      partAnswer: (n, tries) => (n === 2 && tries === 1 ? { status: 503, body: "<Error><Code>SlowDown</Code></Error>" } : null),
    });
    await putWhole(client(url), whole);
    expect(seen.requests.filter((r) => r === "PUT /s3/bucket/frame")).toHaveLength(4);
    expect(seen.completed?.parts.map((p) => p.part_number)).toEqual([1, 2, 3]);
    expect(seen.aborted).toBe(false);
  });

  it("loads the frame from its location when given, else from the frame route", async () => {
    const { frame } = await readCsv(new TextEncoder().encode("x,y\n1,a\n2,b\n"), { maxCells: Infinity });
    const encoded = encodeFrame(frame);
    for (const direct of [true, false]) {
      const { url, seen } = await fakeWorkerAndR2({ direct, frame: encoded });
      const loaded = await client(url).io().loadFrame();
      expect(loaded.rowCount).toBe(2);
      expect(Buffer.from(encodeFrame(loaded)).equals(Buffer.from(encoded))).toBe(true);
      expect(seen.requests).toEqual(direct ? ["GET frame/location", "GET /s3/bucket/frame"] : ["GET frame/location", "GET frame"]);
      await new Promise<void>((r) => server!.close(() => r()));
      server = undefined;
    }
  });
});
