import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import { generateApiKey, hashApiKey } from "../../src/auth/api-keys";
import { expectDocumentedAnswer } from "./openapi-answers";

export interface TestOrg {
  orgId: string;
  apiKeyId: string;
  key: string;
  auth: Record<string, string>;
}

/** A fresh organization with a user and an API key, inserted straight into D1. */
export async function newOrg(name = "Test org"): Promise<TestOrg> {
  const orgId = crypto.randomUUID();
  const userId = crypto.randomUUID();
  const apiKeyId = crypto.randomUUID();
  const key = generateApiKey();
  const now = new Date().toISOString();
  await env.DB.batch([
    env.DB.prepare("INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)").bind(orgId, name, now),
    env.DB.prepare("INSERT INTO users (id, org_id, display_name, email, created_at) VALUES (?, ?, ?, ?, ?)").bind(
      userId,
      orgId,
      "Ada Tester",
      null,
      now,
    ),
    env.DB.prepare("INSERT INTO api_keys (id, org_id, user_id, name, key_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)").bind(
      apiKeyId,
      orgId,
      userId,
      "test key",
      await hashApiKey(key),
      key.slice(0, 10),
      now,
    ),
  ]);
  return { orgId, apiKeyId, key, auth: { Authorization: `Bearer ${key}` } };
}

/**
 * A request to the Worker. The answer of every operation the OpenAPI document describes is checked
 * against it (its status documented, its required headers, its JSON body's schema) before the test
 * sees it, so every Worker test also checks the document.
 */
export async function call(path: string, init: RequestInit = {}): Promise<Response> {
  const res = await exports.default.fetch(new Request(`https://api.test${path}`, init));
  await expectDocumentedAnswer(init.method ?? "GET", path, res);
  return res;
}

export async function json<T = any>(
  path: string,
  org: TestOrg,
  init: Omit<RequestInit, "body"> & { body?: any } = {},
): Promise<{ status: number; body: T; res: Response }> {
  const headers: Record<string, string> = { ...org.auth, ...(init.headers as Record<string, string>) };
  let body = init.body;
  if (body !== undefined && typeof body !== "string" && !(body instanceof FormData)) {
    body = JSON.stringify(body);
    headers["Content-Type"] = "application/json";
  }
  const res = await call(path, { ...init, headers, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, res };
}

export function csvForm(csv: string, fields: Record<string, string> = {}, filename = "data.csv"): FormData {
  const form = new FormData();
  form.append("file", new File([csv], filename, { type: "text/csv" }));
  for (const [k, v] of Object.entries({ dataset_name: "test data", ...fields })) form.append(k, v);
  return form;
}

export async function upload(org: TestOrg, csv: string, fields: Record<string, string> = {}, filename = "data.csv") {
  const r = await json("/datasets", org, { method: "POST", body: csvForm(csv, fields, filename) });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as { dataset: { id: string; version_id: string; version_number: number }; job_id: string; status: string };
}

/** Poll a job until it reaches a terminal state (the real queue consumer runs it). */
export async function waitForJob(org: TestOrg, jobId: string, timeoutMs = 20_000): Promise<any> {
  let last: any;
  await expect
    .poll(
      async () => {
        last = (await json(`/jobs/${jobId}`, org)).body;
        return last?.status;
      },
      { timeout: timeoutMs, interval: 100 },
    )
    .toMatch(/^(succeeded|failed|canceled|rejected)$/);
  return last;
}

export const SMALL_CSV = "age,city,income,churned\n34,Paris,52000,no\n45,Lyon,61000,yes\n23,Paris,38000,no\n51,Nice,,yes\n";

/**
 * A dataset version whose ingest job is queued but was never sent to the queue: tests drive
 * its job by hand (through the consumer or the job object) without the real consumer racing them.
 */
export async function undispatchedIngestJob(org: TestOrg, csv = SMALL_CSV) {
  const { env: workerEnv } = await import("cloudflare:workers");
  const bytes = new TextEncoder().encode(csv);
  const prep = await json("/datasets/upload", org, {
    method: "POST",
    body: { dataset_name: "manual", file: { filename: "d.csv", bytes: bytes.length, content_type: "text/csv" } },
  });
  expect(prep.status, JSON.stringify(prep.body)).toBe(201);
  const put = await call(new URL(prep.body.upload.upload_url).pathname, {
    method: "PUT",
    headers: { "Content-Type": "text/csv", "Content-Length": String(bytes.length) },
    body: bytes,
  });
  expect(put.status).toBe(200);
  const jobId: string = prep.body.job_id;
  const stub = workerEnv.JOB.get(workerEnv.JOB.idFromName(jobId));
  expect((await stub.markUploaded()).ok).toBe(true);
  return { jobId, versionId: prep.body.dataset.version_id as string, datasetId: prep.body.dataset.id as string, stub };
}

// ---- Added for the API integration suite ----------------------------------------------------

/** A tiny SNAPPY Parquet file (pandas' test file simple.parquet): 3 rows, columns A (int64) and B (string). */
export const SIMPLE_PARQUET = fromBase64(
  "UEFSMRUEFTAVLkwVBhUEEgAAGAQBAAkBPAIAAAAAAAAAAwAAAAAAAAAVABUUFRgsFQYVBBUGFQYcGAgDAAAAAAAAABgIAQAAAAAAAAAWACgIAwAAAAAAAAAYCAEAAAAAAAAAAAAACiQCAAAABgECAyQAJuQBHBUEGTUEAAYZGAFBFQIWBhbaARbcASZSJggcGAgDAAAAAAAAABgIAQAAAAAAAAAWACgIAwAAAAAAAAAYCAEAAAAAAAAAABksFQQVBBUCABUAFQQVAgAAABUEFQ4VEkwVAhUEEgAABxgDAAAAZm9vFQAVEhUWLBUGFQQVBhUGHDYAKANmb28YA2ZvbwAAAAkgAgAAAAYBAQYAJpwEHBUMGTUEAAYZGAFCFQIWBhZ6FoIBJsgDJpoDHDYAKANmb28YA2ZvbwAZLBUEFQQVAgAVABUEFQIAAAAVAhk8NQAYBnNjaGVtYRUEABUEJQIYAUEAFQwlAhgBQiUATBwAAAAWBhkcGSwm5AEcFQQZNQQABhkYAUEVAhYGFtoBFtwBJlImCBwYCAMAAAAAAAAAGAgBAAAAAAAAABYAKAgDAAAAAAAAABgIAQAAAAAAAAAAGSwVBBUEFQIAFQAVBBUCAAAAJpwEHBUMGTUEAAYZGAFCFQIWBhZ6FoIBJsgDJpoDHDYAKANmb28YA2ZvbwAZLBUEFQQVAgAVABUEFQIAAAAW3gIWBibkARbeAhQAABksGAZwYW5kYXMYjAR7ImluZGV4X2NvbHVtbnMiOiBbeyJraW5kIjogInJhbmdlIiwgIm5hbWUiOiBudWxsLCAic3RhcnQiOiAwLCAic3RvcCI6IDMsICJzdGVwIjogMX1dLCAiY29sdW1uX2luZGV4ZXMiOiBbeyJuYW1lIjogbnVsbCwgImZpZWxkX25hbWUiOiBudWxsLCAicGFuZGFzX3R5cGUiOiAidW5pY29kZSIsICJudW1weV90eXBlIjogIm9iamVjdCIsICJtZXRhZGF0YSI6IHsiZW5jb2RpbmciOiAiVVRGLTgifX1dLCAiY29sdW1ucyI6IFt7Im5hbWUiOiAiQSIsICJmaWVsZF9uYW1lIjogIkEiLCAicGFuZGFzX3R5cGUiOiAiaW50NjQiLCAibnVtcHlfdHlwZSI6ICJpbnQ2NCIsICJtZXRhZGF0YSI6IG51bGx9LCB7Im5hbWUiOiAiQiIsICJmaWVsZF9uYW1lIjogIkIiLCAicGFuZGFzX3R5cGUiOiAidW5pY29kZSIsICJudW1weV90eXBlIjogIm9iamVjdCIsICJtZXRhZGF0YSI6IG51bGx9XSwgImNyZWF0b3IiOiB7ImxpYnJhcnkiOiAicHlhcnJvdyIsICJ2ZXJzaW9uIjogIjAuMTcuMSJ9LCAicGFuZGFzX3ZlcnNpb24iOiAiMS4wLjMifQAYDEFSUk9XOnNjaGVtYRjsBy8vLy8vK2dDQUFBUUFBQUFBQUFLQUE0QUJnQUZBQWdBQ2dBQUFBQUJBd0FRQUFBQUFBQUtBQXdBQUFBRUFBZ0FDZ0FBQUVRQ0FBQUVBQUFBQVFBQUFBd0FBQUFJQUF3QUJBQUlBQWdBQUFBSUFBQUFFQUFBQUFZQUFBQndZVzVrWVhNQUFBd0NBQUI3SW1sdVpHVjRYMk52YkhWdGJuTWlPaUJiZXlKcmFXNWtJam9nSW5KaGJtZGxJaXdnSW01aGJXVWlPaUJ1ZFd4c0xDQWljM1JoY25RaU9pQXdMQ0FpYzNSdmNDSTZJRE1zSUNKemRHVndJam9nTVgxZExDQWlZMjlzZFcxdVgybHVaR1Y0WlhNaU9pQmJleUp1WVcxbElqb2diblZzYkN3Z0ltWnBaV3hrWDI1aGJXVWlPaUJ1ZFd4c0xDQWljR0Z1WkdGelgzUjVjR1VpT2lBaWRXNXBZMjlrWlNJc0lDSnVkVzF3ZVY5MGVYQmxJam9nSW05aWFtVmpkQ0lzSUNKdFpYUmhaR0YwWVNJNklIc2laVzVqYjJScGJtY2lPaUFpVlZSR0xUZ2lmWDFkTENBaVkyOXNkVzF1Y3lJNklGdDdJbTVoYldVaU9pQWlRU0lzSUNKbWFXVnNaRjl1WVcxbElqb2dJa0VpTENBaWNHRnVaR0Z6WDNSNWNHVWlPaUFpYVc1ME5qUWlMQ0FpYm5WdGNIbGZkSGx3WlNJNklDSnBiblEyTkNJc0lDSnRaWFJoWkdGMFlTSTZJRzUxYkd4OUxDQjdJbTVoYldVaU9pQWlRaUlzSUNKbWFXVnNaRjl1WVcxbElqb2dJa0lpTENBaWNHRnVaR0Z6WDNSNWNHVWlPaUFpZFc1cFkyOWtaU0lzSUNKdWRXMXdlVjkwZVhCbElqb2dJbTlpYW1WamRDSXNJQ0p0WlhSaFpHRjBZU0k2SUc1MWJHeDlYU3dnSW1OeVpXRjBiM0lpT2lCN0lteHBZbkpoY25raU9pQWljSGxoY25KdmR5SXNJQ0oyWlhKemFXOXVJam9nSWpBdU1UY3VNU0o5TENBaWNHRnVaR0Z6WDNabGNuTnBiMjRpT2lBaU1TNHdMak1pZlFBQUFBQUNBQUFBUUFBQUFBUUFBQURZLy8vL0FBQUJCUmdBQUFBUUFBQUFCQUFBQUFBQUFBQUVBQVFBQkFBQUFBRUFBQUJDQUFBQUVBQVVBQWdBQmdBSEFBd0FBQUFRQUJBQUFBQUFBQUVDSkFBQUFCUUFBQUFFQUFBQUFBQUFBQWdBREFBSUFBY0FDQUFBQUFBQUFBRkFBQUFBQVFBQUFFRUFBQUE9ABgicGFycXVldC1jcHAgdmVyc2lvbiAxLjUuMS1TTkFQU0hPVBksHAAAHAAAABkHAABQQVIx",
);

function fromBase64(s: string): Uint8Array {
  return Uint8Array.from(atob(s), (ch) => ch.charCodeAt(0));
}

export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A multipart form with any file content (bytes or text). */
export function fileForm(content: string | Uint8Array | Blob, filename: string, type: string, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  form.append("file", new File([content], filename, { type }));
  for (const [k, v] of Object.entries({ dataset_name: "test data", ...fields })) form.append(k, v);
  return form;
}

/** Upload a CSV and wait for its ingest job to end. */
export async function ingest(org: TestOrg, csv: string, fields: Record<string, string> = {}, filename = "data.csv") {
  const created = await upload(org, csv, fields, filename);
  const job = await waitForJob(org, created.job_id);
  return { created, job };
}

/** POST /datasets/upload for one file; asserts 201. */
export async function prepareSigned(
  org: TestOrg,
  file: { filename?: string; bytes: number; content_type?: string },
  extra: Record<string, unknown> = {},
) {
  const r = await json("/datasets/upload", org, {
    method: "POST",
    body: { dataset_name: "signed data", file: { filename: "data.csv", content_type: "text/csv", ...file }, ...extra },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as {
    upload: { upload_url: string };
    dataset: { id: string; version_id: string; version_number: number };
    job_id: string;
    status: string;
  };
}

/** PUT to a signed upload URL (https://api.test/uploads/...) through the Worker. */
export function putSigned(uploadUrl: string, body: BodyInit, contentType: string | null = "text/csv"): Promise<Response> {
  const url = new URL(uploadUrl);
  const headers: Record<string, string> = contentType ? { "Content-Type": contentType } : {};
  return call(url.pathname + url.search, { method: "PUT", headers, body });
}

/** Prepare, PUT and complete a signed upload of one CSV; returns the completion body. */
export async function signedIngest(org: TestOrg, csv: string, filename = "data.csv") {
  const bytes = new TextEncoder().encode(csv);
  const prepared = await prepareSigned(org, { filename, bytes: bytes.length });
  const put = await putSigned(prepared.upload.upload_url, bytes);
  expect(put.status, await put.clone().text()).toBe(200);
  const done = await json(`/datasets/${prepared.dataset.version_id}/complete`, org, { method: "POST" });
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  return { prepared, completed: done.body };
}

/** The stored UUID of a public job id (job_<32 hex>; a UUID stays as it is). */
export function uuidOfPublicJobId(publicId: string): string {
  const h = publicId.replace(/^job_/, "").replace(/-/g, "");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Expect the pydantic-shaped 422 and return its items. */
export function expect422(r: {
  status: number;
  body: any;
}): Array<{ loc: (string | number)[]; msg: string; type: string; input: unknown; ctx: Record<string, unknown> }> {
  expect(r.status, JSON.stringify(r.body)).toBe(422);
  expect(Array.isArray(r.body.detail)).toBe(true);
  expect(r.body.detail.length).toBeGreaterThan(0);
  for (const item of r.body.detail) {
    expect(Object.keys(item).sort()).toEqual(["ctx", "input", "loc", "msg", "type"]);
    expect(Array.isArray(item.loc)).toBe(true);
    expect(typeof item.msg).toBe("string");
    expect(typeof item.type).toBe("string");
    expect(typeof item.ctx).toBe("object");
    expect(item.ctx).not.toBeNull();
  }
  return r.body.detail;
}

/** Like waitForJob, but usable in beforeAll (expect.poll works inside tests only). */
export async function untilJobEnds(org: TestOrg, jobId: string, timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = (await json(`/jobs/${jobId}`, org)).body;
    if (/^(succeeded|failed|canceled|rejected)$/.test(job?.status)) return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job?.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
