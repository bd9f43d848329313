import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { hashApiKey } from "../../src/auth/api-keys";
import { forgetKey } from "../../src/auth/principal";
import { PRINCIPAL_CACHE_TTL_MS } from "../../src/core/limits";
import { call, json, newOrg, prepareSigned, putSigned, SMALL_CSV, signedIngest } from "./helpers";

async function expect401(res: Response) {
  expect(res.status).toBe(401);
  expect(res.headers.get("WWW-Authenticate")).toBe("Bearer");
  expect(await res.json()).toEqual({ detail: "Not authenticated" });
}

describe("authentication", () => {
  it("answers 401 without an Authorization header", async () => {
    await expect401(await call("/datasets"));
  });

  it("answers 401 for a scheme other than Bearer", async () => {
    const org = await newOrg();
    await expect401(await call("/datasets", { headers: { Authorization: `Basic ${btoa(`user:${org.key}`)}` } }));
  });

  it("answers 401 for the right key under a wrong scheme name", async () => {
    const org = await newOrg();
    await expect401(await call("/jobs", { headers: { Authorization: `Token ${org.key}` } }));
  });

  it("answers 401 for an unknown key", async () => {
    await expect401(await call("/jobs", { headers: { Authorization: "Bearer sk_not_a_real_key_at_all_0000000000000000000" } }));
  });

  it("answers 401 for a revoked key: at once where it was revoked, everywhere within the key cache's lifetime", async () => {
    const org = await newOrg();
    expect((await call("/datasets", { headers: org.auth })).status).toBe(200);
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").bind(new Date().toISOString(), org.apiKeyId).run();
    // revoked in this isolate: its cache entry is dropped with it
    forgetKey(await hashApiKey(org.key));
    await expect401(await call("/datasets", { headers: org.auth }));
  });

  it("sees a key revoked elsewhere once the cached principal expires (≤ 60 s)", async () => {
    const org = await newOrg();
    expect((await call("/datasets", { headers: org.auth })).status).toBe(200);
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").bind(new Date().toISOString(), org.apiKeyId).run();
    expect(PRINCIPAL_CACHE_TTL_MS).toBeLessThanOrEqual(60_000);
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + PRINCIPAL_CACHE_TTL_MS + 1000);
      await expect401(await call("/datasets", { headers: org.auth }));
    } finally {
      vi.useRealTimers();
    }
  });

  it("answers 401 on POST routes before reading the body", async () => {
    await expect401(await call("/datasets/upload", { method: "POST", body: "{not json" }));
  });

  it("accepts the Bearer scheme case-insensitively", async () => {
    const org = await newOrg();
    const res = await call("/datasets", { headers: { Authorization: `bearer ${org.key}` } });
    expect(res.status).toBe(200);
  });

  it("does not take X-API-Key on routes other than the completion endpoint", async () => {
    const org = await newOrg();
    await expect401(await call("/datasets", { headers: { "X-API-Key": org.key } }));
  });

  it("accepts X-API-Key alone on /api/datasets/{id}/complete", async () => {
    const org = await newOrg();
    const bytes = new TextEncoder().encode(SMALL_CSV);
    const prepared = await prepareSigned(org, { bytes: bytes.length });
    expect((await putSigned(prepared.upload.upload_url, bytes)).status).toBe(200);
    const res = await call(`/api/datasets/${prepared.dataset.version_id}/complete`, { method: "POST", headers: { "X-API-Key": org.key } });
    expect(res.status).toBe(200);
    const body: any = await res.json();
    expect(body).toMatchObject({ dataset_version_id: prepared.dataset.version_id, counts: { expected: 1, uploaded: 1, failed: 0 } });
  });

  it("accepts X-API-Key alone on /datasets/{id}/complete too", async () => {
    const org = await newOrg();
    const bytes = new TextEncoder().encode(SMALL_CSV);
    const prepared = await prepareSigned(org, { bytes: bytes.length });
    expect((await putSigned(prepared.upload.upload_url, bytes)).status).toBe(200);
    const res = await call(`/datasets/${prepared.dataset.version_id}/complete`, { method: "POST", headers: { "X-API-Key": org.key } });
    expect(res.status).toBe(200);
  });

  it("answers 401 for an unknown X-API-Key on the completion endpoint", async () => {
    const org = await newOrg();
    const prepared = await prepareSigned(org, { bytes: 10 });
    await expect401(await call(`/datasets/${prepared.dataset.version_id}/complete`, { method: "POST", headers: { "X-API-Key": "sk_wrong" } }));
  });

  it("records the key's organization: a key sees only its own datasets", async () => {
    const a = await newOrg();
    const b = await newOrg();
    const { prepared } = await signedIngest(a, SMALL_CSV);
    const listB = await json("/datasets", b);
    expect(listB.body.items.map((d: any) => d.dataset_id)).not.toContain(prepared.dataset.id);
    const listA = await json("/datasets", a);
    expect(listA.body.items.map((d: any) => d.dataset_id)).toContain(prepared.dataset.id);
  });

  it("needs no key for the signed upload URL itself (the token authorizes)", async () => {
    const org = await newOrg();
    const bytes = new TextEncoder().encode(SMALL_CSV);
    const prepared = await prepareSigned(org, { bytes: bytes.length });
    const res = await putSigned(prepared.upload.upload_url, bytes);
    expect(res.status).toBe(200);
  });
});
