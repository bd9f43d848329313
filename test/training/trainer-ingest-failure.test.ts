/**
 * The trainer process ingesting a file that turns out to be garbage deep in (issue 13, bad input),
 * against a stand-in for the Worker's control routes (a Node HTTP server): it reports one failure,
 * permanent (retrying cannot fix the file) and naming the line and byte, and stores nothing: no
 * frame, no preview, no success. A source cut off mid-file is a transient failure (retried).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { runJob } from "../../src/container/server";

const JOB = "00000000-0000-4000-8000-000000000002";
let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

interface Seen {
  paths: string[];
  failure?: { attempt: number; message: string; permanent: boolean };
}

/** Serves an ingest of one CSV file, `file`, sent in 64 KB writes; `cutAt`: drop the connection
 * after that many bytes of it, or with `cleanly`, end the (chunked) response there. */
async function fakeControl(file: Uint8Array, cutAt = Infinity, cleanly = false): Promise<{ url: string; seen: Seen }> {
  const seen: Seen = { paths: [] };
  server = createServer(async (req, res) => {
    const path = new URL(req.url!, "http://x").pathname.replace(`/internal/jobs/${JOB}/`, "");
    seen.paths.push(path);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const reply = (status: number, json: unknown) => res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(json));
    if (path === "task") {
      const files = [{ filename: "big.csv", bytes: file.length }];
      return reply(200, { kind: "dataset_ingest", task: { format: "csv", files, total_bytes: file.length } });
    }
    if (path === "report") return reply(200, { canceled: false });
    if (path === "fail") return ((seen.failure = JSON.parse(Buffer.concat(chunks).toString())), reply(200, { ok: true }));
    if (path !== "sources/0") return reply(500, { detail: `unexpected ${path}` });
    const length: Record<string, string> = cleanly ? {} : { "Content-Length": String(file.length) };
    res.writeHead(200, { "Content-Type": "application/octet-stream", ...length });
    for (let at = 0; at < file.length; at += 65536) {
      if (at >= cutAt) return cleanly ? res.end() : req.socket.destroy();
      if (!res.write(file.subarray(at, at + 65536))) await new Promise((r) => res.once("drain", r));
    }
    res.end();
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

const utf8 = (s: string) => new TextEncoder().encode(s);

/** About 3 MB of good rows with 1- to 4-byte characters, past several parse pieces. */
const GOOD = `id,note\n${Array.from({ length: 90000 }, (_, i) => `${i},café €${i} 😀\n`).join("")}`;
const GOOD_LINES = 90001;

async function ingest(file: Uint8Array, cutAt?: number, cleanly?: boolean): Promise<Seen> {
  const { url, seen } = await fakeControl(file, cutAt, cleanly);
  await runJob({ baseUrl: url, secret: "s" }, JOB, 1);
  return seen;
}

/** Nothing was stored: the trainer asked for its task and file, reported progress, and failed. */
function expectNothingStored(seen: Seen) {
  expect(seen.paths.filter((p) => !["task", "sources/0", "report", "fail"].includes(p))).toEqual([]);
  expect(seen.paths.filter((p) => p === "fail")).toHaveLength(1);
}

describe("the trainer ingesting a file that is bad deep in", () => {
  it("a ragged row: one permanent failure naming the line and the byte of the record", async () => {
    const seen = await ingest(utf8(`${GOOD}1,2,3\n4,x\n`));
    expect(seen.failure).toMatchObject({ attempt: 1, permanent: true });
    expect(seen.failure!.message).toContain(
      `Line ${GOOD_LINES + 1} has 3 fields but the header has 2 columns (the record starts at byte ${utf8(GOOD).length})`,
    );
    expectNothingStored(seen);
  });

  it("bytes that are not UTF-8: one permanent failure naming the byte and the line", async () => {
    const seen = await ingest(new Uint8Array([...utf8(GOOD), 0x31, 0x2c, 0xff, 0x0a]));
    expect(seen.failure).toMatchObject({ attempt: 1, permanent: true });
    expect(seen.failure!.message).toContain(`at byte ${utf8(GOOD).length + 2} (line ${GOOD_LINES + 1})`);
    expectNothingStored(seen);
  });

  it("the file cut off mid-way (the connection lost): a transient failure, retried by the job's policy", async () => {
    const seen = await ingest(utf8(GOOD), 1 << 20);
    expect(seen.failure).toMatchObject({ attempt: 1, permanent: false });
    expectNothingStored(seen);
  });

  it("the file ending early but cleanly: a transient failure saying so, not a shorter table", async () => {
    const seen = await ingest(utf8(GOOD), 1 << 20, true);
    expect(seen.failure).toMatchObject({ attempt: 1, permanent: false });
    expect(seen.failure!.message).toMatch(/^'big.csv' was read as 1048576 bytes, not the \d+ uploaded/);
    expectNothingStored(seen);
  });
});
