/**
 * An ingest job stores its frame in parts (R2 multipart upload) through the control routes:
 * begun, part by part, completed into the one object at the version's frame key; checked against
 * the attempt token; a missing part fails the completion clearly.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { FRAME_PART_BYTES } from "../../src/storage/frame-parts";
import { call, newOrg } from "./helpers";
import { frameKeyOfVersion, preparedIngest, SECRET } from "./ingest-helpers";
import { runningCopy } from "./model-helpers";

const MiB = 1024 * 1024;
let jobId: string;

beforeAll(async () => {
  jobId = (await preparedIngest(await newOrg(), ["id,x\n0,1\n"])).job_id;
});

const post = (id: string, path: string, body: object) =>
  call(`/internal/jobs/${id}/frame/${path}`, {
    method: "POST",
    headers: { ...SECRET, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
const putPart = (id: string, attempt: number, uploadId: string, n: number, bytes: Uint8Array) =>
  call(`/internal/jobs/${id}/frame/parts/${n}?attempt=${attempt}&upload_id=${encodeURIComponent(uploadId)}`, {
    method: "PUT",
    headers: { ...SECRET, "Content-Length": String(bytes.byteLength) },
    body: bytes,
  });
/** Bytes that differ from part to part, so a misplaced part shows. */
function pattern(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 7 + seed) & 255;
  return out;
}
/** The first index where `a` and `b` differ, -1 when equal (toEqual is slow on megabytes). */
function firstDifference(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return -1;
}

async function begin(id: string, attempt: number): Promise<string> {
  const r = await post(id, "uploads", { attempt });
  expect(r.status, await r.clone().text()).toBe(200);
  return (await r.json<{ upload_id: string }>()).upload_id;
}

describe("the frame stored in parts", () => {
  it("joins the parts, in order, into the version's frame object", async () => {
    const { id, attempt, record } = await runningCopy(jobId);
    const uploadId = await begin(id, attempt);
    const first = pattern(5 * MiB, 1);
    const last = pattern(1000, 2);
    const parts = [];
    for (const [i, bytes] of [first, last].entries()) {
      const r = await putPart(id, attempt, uploadId, i + 1, bytes);
      expect(r.status, await r.clone().text()).toBe(200);
      parts.push(await r.json<{ part_number: number; etag: string }>());
    }
    expect(parts.map((p) => p.part_number)).toEqual([1, 2]);
    const done = await post(id, "complete", { attempt, upload_id: uploadId, parts, bytes: first.length + last.length });
    expect(done.status, await done.clone().text()).toBe(200);
    const stored = await env.BUCKET.get(await frameKeyOfVersion(record.datasetVersionId!));
    const bytes = new Uint8Array(await stored!.arrayBuffer());
    expect(bytes.length).toBe(first.length + last.length);
    expect(firstDifference(bytes.subarray(0, first.length), first)).toBe(-1);
    expect(firstDifference(bytes.subarray(first.length), last)).toBe(-1);
  });

  it("answers a repeated complete (the first answer lost) as done, the frame unchanged", async () => {
    const { id, attempt, record } = await runningCopy(jobId);
    const uploadId = await begin(id, attempt);
    const bytes = pattern(1000, 6);
    const part = await (await putPart(id, attempt, uploadId, 1, bytes)).json<{ part_number: number; etag: string }>();
    const complete = { attempt, upload_id: uploadId, parts: [part], bytes: bytes.length };
    expect((await post(id, "complete", complete)).status).toBe(200);
    const again = await post(id, "complete", complete);
    expect(again.status, await again.clone().text()).toBe(200);
    const stored = await env.BUCKET.get(await frameKeyOfVersion(record.datasetVersionId!));
    expect(firstDifference(new Uint8Array(await stored!.arrayBuffer()), bytes)).toBe(-1);
  });

  it("answers 409 to every step of a stale attempt", async () => {
    const { id, attempt } = await runningCopy(jobId);
    const uploadId = await begin(id, attempt);
    const stale = attempt + 1;
    expect((await post(id, "uploads", { attempt: stale })).status).toBe(409);
    expect((await post(id, "part-url", { attempt: stale, upload_id: uploadId, part_number: 1, bytes: 10 })).status).toBe(409);
    expect((await putPart(id, stale, uploadId, 1, pattern(10, 0))).status).toBe(409);
    expect((await post(id, "complete", { attempt: stale, upload_id: uploadId, parts: [{ part_number: 1, etag: "x" }], bytes: 10 })).status).toBe(409);
  });

  it("lets an attempt that is no longer running abort its upload (cleanup after a cancel)", async () => {
    const { id, attempt } = await runningCopy(jobId);
    const uploadId = await begin(id, attempt);
    const part = await (await putPart(id, attempt, uploadId, 1, pattern(100, 6))).json<{ part_number: number; etag: string }>();
    expect((await post(id, "abort", { attempt: attempt + 1, upload_id: uploadId })).status).toBe(200);
    expect((await post(id, "complete", { attempt, upload_id: uploadId, parts: [part], bytes: 100 })).status).toBe(400);
  });

  it("refuses to complete with a part missing from the numbering", async () => {
    const { id, attempt } = await runningCopy(jobId);
    const uploadId = await begin(id, attempt);
    const r = await putPart(id, attempt, uploadId, 1, pattern(5 * MiB, 3));
    const one = await r.json<{ part_number: number; etag: string }>();
    const done = await post(id, "complete", { attempt, upload_id: uploadId, parts: [one, { part_number: 3, etag: one.etag }], bytes: 5 * MiB + 10 });
    expect(done.status).toBe(400);
    expect((await done.json<{ detail: string }>()).detail).toContain("part 2 is missing");
  });

  it("refuses to complete with a part that was never stored", async () => {
    const { id, attempt } = await runningCopy(jobId);
    const uploadId = await begin(id, attempt);
    const r = await putPart(id, attempt, uploadId, 1, pattern(5 * MiB, 4));
    const one = await r.json<{ part_number: number; etag: string }>();
    const done = await post(id, "complete", {
      attempt,
      upload_id: uploadId,
      parts: [one, { part_number: 2, etag: "never-stored" }],
      bytes: 5 * MiB + 10,
    });
    expect(done.status).toBe(400);
    expect((await done.json<{ detail: string }>()).detail).toMatch(/^Could not join the frame's parts: /);
  });

  it("aborts an upload, after which its parts cannot be completed", async () => {
    const { id, attempt } = await runningCopy(jobId);
    const uploadId = await begin(id, attempt);
    const part = await (await putPart(id, attempt, uploadId, 1, pattern(100, 5))).json<{ part_number: number; etag: string }>();
    expect((await post(id, "abort", { attempt, upload_id: uploadId })).status).toBe(200);
    expect((await post(id, "complete", { attempt, upload_id: uploadId, parts: [part], bytes: 100 })).status).toBe(400);
  });

  it("refuses to sign a part longer than a frame part holds (413)", async () => {
    const { id, attempt } = await runningCopy(jobId);
    const uploadId = await begin(id, attempt);
    const r = await post(id, "part-url", { attempt, upload_id: uploadId, part_number: 1, bytes: FRAME_PART_BYTES + 1 });
    expect(r.status, await r.clone().text()).toBe(413);
  });

  it("requires the length of a part", async () => {
    const { id, attempt } = await runningCopy(jobId);
    const uploadId = await begin(id, attempt);
    const r = await call(`/internal/jobs/${id}/frame/parts/1?attempt=${attempt}&upload_id=${encodeURIComponent(uploadId)}`, {
      method: "PUT",
      headers: SECRET,
      body: new ReadableStream({ start: (c) => (c.enqueue(new Uint8Array([1, 2])), c.close()) }),
      duplex: "half",
    } as RequestInit);
    expect(r.status).toBe(411);
  });
});
