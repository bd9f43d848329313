import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import { generateApiKey, hashApiKey } from "../../src/auth/api-keys";

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
    env.DB.prepare("INSERT INTO users (id, org_id, display_name, email, created_at) VALUES (?, ?, ?, ?, ?)").bind(userId, orgId, "Ada Tester", null, now),
    env.DB.prepare("INSERT INTO api_keys (id, org_id, user_id, name, key_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)").bind(
      apiKeyId, orgId, userId, "test key", await hashApiKey(key), key.slice(0, 10), now,
    ),
  ]);
  return { orgId, apiKeyId, key, auth: { Authorization: `Bearer ${key}` } };
}

export function call(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(new Request(`https://api.test${path}`, init));
}

export async function json<T = any>(path: string, org: TestOrg, init: RequestInit & { body?: any } = {}): Promise<{ status: number; body: T; res: Response }> {
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
