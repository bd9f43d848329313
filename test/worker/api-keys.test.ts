/**
 * API keys over the API: create (secret shown once), list (never the secret or hash), revoke
 * (at once in this isolate, within the principal cache TTL elsewhere), scoped to the organization.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { hashApiKey } from "../../src/auth/api-keys";
import { PRINCIPAL_CACHE_TTL_MS } from "../../src/core/limits";
import { call, json, newOrg, type TestOrg } from "./helpers";

const asKey = (key: string): TestOrg => ({ orgId: "", apiKeyId: "", key, auth: { Authorization: `Bearer ${key}` } });

afterEach(() => {
  vi.useRealTimers();
});

describe("POST /api-keys", () => {
  it("answers 201 with the secret once; the new key works at once and belongs to the same organization", async () => {
    const org = await newOrg();
    const { status, body } = await json("/api-keys", org, { method: "POST", body: { name: "ci key" } });
    expect(status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({ name: "ci key", revoked_at: null, current: false });
    expect(body.key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(body.prefix).toBe(body.key.slice(0, 10));
    const row = await env.DB.prepare("SELECT org_id, key_hash FROM api_keys WHERE id = ?")
      .bind(body.id)
      .first<{ org_id: string; key_hash: string }>();
    expect(row).toEqual({ org_id: org.orgId, key_hash: await hashApiKey(body.key) });

    const me = await json("/api-keys", asKey(body.key));
    expect(me.status).toBe(200);
    expect(me.body.items.map((k: { id: string }) => k.id).sort()).toEqual([org.apiKeyId, body.id].sort());
    expect(me.body.items.find((k: { id: string }) => k.id === body.id).current).toBe(true);
  });

  it("refuses a missing, empty or too long name and unknown fields with 422", async () => {
    const org = await newOrg();
    for (const bad of [{}, { name: "  " }, { name: "x".repeat(101) }, { name: "a", scope: "all" }]) {
      const r = await json("/api-keys", org, { method: "POST", body: bad });
      expect(r.status, JSON.stringify(bad)).toBe(422);
      expect(r.body.detail[0].loc[0]).toBe("body");
    }
  });

  it("needs a key", async () => {
    const res = await call("/api-keys", { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"name":"x"}' });
    expect(res.status).toBe(401);
  });
});

describe("GET /api-keys", () => {
  it("lists newest first in pages, never the secret nor the hash, revoked keys with revoked_at", async () => {
    const org = await newOrg();
    const made = [];
    for (const name of ["a", "b", "c"]) made.push((await json("/api-keys", org, { method: "POST", body: { name } })).body);
    expect((await json(`/api-keys/${made[0].id}`, org, { method: "DELETE" })).status).toBe(204);

    const first = await json("/api-keys?limit=2", org);
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(2);
    const rest = await json(`/api-keys?limit=2&cursor=${first.body.next_cursor}`, org);
    expect(rest.body.next_cursor).toBeNull();
    const all = [...first.body.items, ...rest.body.items];
    // Newest first: (created_at, id) descending (keys made in the same millisecond go by id).
    const order = (k: { created_at: string; id: string }) => `${k.created_at} ${k.id}`;
    expect(all.map(order)).toEqual(all.map(order).sort().reverse());
    expect(all.map((k) => k.name).sort()).toEqual(["a", "b", "c", "test key"]);
    expect(all.find((k) => k.name === "a").revoked_at).toMatch(/^\d{4}-/);
    expect(all.find((k) => k.name === "test key")).toMatchObject({ id: org.apiKeyId, current: true, revoked_at: null });

    const text = JSON.stringify([first.body, rest.body]);
    for (const k of made) {
      expect(text).not.toContain(k.key);
      expect(text).not.toContain(await hashApiKey(k.key));
    }
    for (const item of all) {
      expect(Object.keys(item).sort()).toEqual(["created_at", "current", "id", "last_used_at", "name", "prefix", "revoked_at"]);
    }
  });

  it("shows only the caller's organization", async () => {
    const [a, b] = [await newOrg(), await newOrg()];
    const r = await json("/api-keys", b);
    expect(r.body.items.map((k: { id: string }) => k.id)).toEqual([b.apiKeyId]);
    expect(r.body.items.some((k: { id: string }) => k.id === a.apiKeyId)).toBe(false);
  });
});

describe("last_used_at", () => {
  it("is null until the key authenticates a request, then that time, written at most once a minute", async () => {
    const org = await newOrg();
    const made = (await json("/api-keys", org, { method: "POST", body: { name: "used" } })).body;
    expect(made.last_used_at).toBeNull();
    const usedAt = async () => (await json("/api-keys", org)).body.items.find((k: { id: string }) => k.id === made.id).last_used_at;
    expect(await usedAt()).toBeNull();

    const before = new Date().toISOString();
    expect((await json("/datasets", asKey(made.key))).status).toBe(200);
    await expect.poll(usedAt).not.toBeNull();
    const first = await usedAt();
    expect(first >= before).toBe(true);
    expect((await json("/datasets", asKey(made.key))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    expect(await usedAt()).toBe(first); // within the minute: not written again

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 61_000);
    expect((await json("/datasets", asKey(made.key))).status).toBe(200);
    await expect.poll(usedAt).not.toBe(first);
  });
});

describe("DELETE /api-keys/{id}", () => {
  it("revokes: the key stops working at once in this isolate, even while its principal is cached", async () => {
    const org = await newOrg();
    const other = (await json("/api-keys", org, { method: "POST", body: { name: "to revoke" } })).body;
    expect((await json("/datasets", asKey(other.key))).status).toBe(200); // cached now
    expect((await json(`/api-keys/${other.id}`, org, { method: "DELETE" })).status).toBe(204);
    expect((await json("/datasets", asKey(other.key))).status).toBe(401);
    // Again: still 204, the revocation time kept.
    const before = (await json("/api-keys", org)).body.items.find((k: { id: string }) => k.id === other.id).revoked_at;
    expect((await json(`/api-keys/${other.id}`, org, { method: "DELETE" })).status).toBe(204);
    expect((await json("/api-keys", org)).body.items.find((k: { id: string }) => k.id === other.id).revoked_at).toBe(before);
  });

  it("a key revoked by another isolate stops working within the cache TTL (30 s, under the 60 s promised)", async () => {
    expect(PRINCIPAL_CACHE_TTL_MS).toBeLessThanOrEqual(60_000);
    const org = await newOrg();
    const other = (await json("/api-keys", org, { method: "POST", body: { name: "elsewhere" } })).body;
    expect((await json("/datasets", asKey(other.key))).status).toBe(200);
    // What another isolate's DELETE leaves behind: the row revoked, this isolate's cache untouched.
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").bind(new Date().toISOString(), other.id).run();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + PRINCIPAL_CACHE_TTL_MS + 1000);
    expect((await json("/datasets", asKey(other.key))).status).toBe(401);
  });

  it("a key may revoke itself, the organization's last one included", async () => {
    const org = await newOrg();
    expect((await json(`/api-keys/${org.apiKeyId}`, org, { method: "DELETE" })).status).toBe(204);
    expect((await json("/api-keys", org)).status).toBe(401);
  });

  it("another organization's key, or an unknown id, is 404 and stays valid", async () => {
    const [a, b] = [await newOrg(), await newOrg()];
    const r = await json(`/api-keys/${a.apiKeyId}`, b, { method: "DELETE" });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: "Not found" });
    expect((await json(`/api-keys/${crypto.randomUUID()}`, b, { method: "DELETE" })).status).toBe(404);
    expect((await json("/api-keys", a)).status).toBe(200);
  });
});

describe("the document", () => {
  it("describes the three routes", async () => {
    const doc = await (await call("/openapi.json")).json<{ paths: Record<string, Record<string, unknown>> }>();
    expect(Object.keys(doc.paths["/api-keys"] ?? {}).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/api-keys/{api_key_id}"] ?? {})).toEqual(["delete"]);
  });
});
