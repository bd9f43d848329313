/**
 * The warm path's caches are refreshed ahead of their expiry, after the response: a key and a
 * model in steady use never wait for D1, and a refresh still brings a revocation or a delete in.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, expect, it, vi } from "vitest";
import { findPrincipal } from "../../src/auth/principal";
import { NotFound } from "../../src/core/errors";
import { MODEL_CACHE_TTL_MS, PRINCIPAL_CACHE_TTL_MS } from "../../src/core/limits";
import { createDb } from "../../src/db/client";
import { cachedModelWithVersions } from "../../src/models/model-cache";
import { newOrg, type TestOrg } from "./helpers";
import { orgWithModel } from "./model-helpers";

let org: TestOrg;
let modelId: string;

beforeAll(async () => {
  ({ org, modelId } = await orgWithModel());
}, 120_000);

afterEach(() => vi.useRealTimers());

/** A database handle counting the D1 calls made through it, and the work handed to waitUntil. */
function counted() {
  const calls = { d1: 0 };
  const d1 = new Proxy(env.DB, {
    get(t, prop) {
      const v = Reflect.get(t, prop);
      return typeof v === "function" ? (...a: unknown[]) => (calls.d1++, v.apply(t, a)) : v;
    },
  });
  const deferred: Promise<unknown>[] = [];
  return { db: createDb(d1), calls, defer: (p: Promise<unknown>) => void deferred.push(p), settle: () => Promise.all(deferred) };
}

const at = (ms: number) => vi.setSystemTime(ms);

it("a key near its expiry answers from the cache and is looked up again after; a revocation found then drops it at once", async () => {
  const other = await newOrg();
  const t0 = Date.now() + 10 * PRINCIPAL_CACHE_TTL_MS; // past any entry earlier tests left
  vi.useFakeTimers({ toFake: ["Date"] });
  at(t0);
  expect(await findPrincipal(createDb(env.DB), other.key)).not.toBeNull(); // cached at t0

  at(t0 + PRINCIPAL_CACHE_TTL_MS - 5000); // within the refresh window
  const warm = counted();
  expect(await findPrincipal(warm.db, other.key, undefined, warm.defer)).not.toBeNull();
  expect(warm.calls.d1).toBe(0);
  await warm.settle();
  expect(warm.calls.d1).toBeGreaterThan(0);

  at(t0 + PRINCIPAL_CACHE_TTL_MS + 5000); // past the first expiry: the refreshed entry answers
  const later = counted();
  expect(await findPrincipal(later.db, other.key, undefined, later.defer)).not.toBeNull();
  expect(later.calls.d1).toBe(0);

  await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").bind(new Date().toISOString(), other.apiKeyId).run();
  at(t0 + 2 * PRINCIPAL_CACHE_TTL_MS - 8000); // the refreshed entry's window (it was set at TTL - 5 s)
  const revoked = counted();
  expect(await findPrincipal(revoked.db, other.key, undefined, revoked.defer)).not.toBeNull(); // still within its time
  await revoked.settle();
  expect(await findPrincipal(createDb(env.DB), other.key)).toBeNull(); // before its expiry
});

it("a model near its expiry answers from the cache and is looked up again after; a delete found then drops it", async () => {
  const principal = { orgId: org.orgId, apiKeyId: org.apiKeyId, userId: null, actorName: "test key" };
  const t0 = Date.now() + 10 * PRINCIPAL_CACHE_TTL_MS;
  vi.useFakeTimers({ toFake: ["Date"] });
  at(t0);
  await cachedModelWithVersions(createDb(env.DB), principal, modelId); // a miss: cached at t0

  at(t0 + MODEL_CACHE_TTL_MS - 1000);
  const warm = counted();
  expect((await cachedModelWithVersions(warm.db, principal, modelId, undefined, undefined, warm.defer)).model.id).toBe(modelId);
  expect(warm.calls.d1).toBe(0);
  await warm.settle();
  expect(warm.calls.d1).toBeGreaterThan(0);

  at(t0 + MODEL_CACHE_TTL_MS + 1000);
  const later = counted();
  await cachedModelWithVersions(later.db, principal, modelId, undefined, undefined, later.defer);
  expect(later.calls.d1).toBe(0);

  await env.DB.batch([
    env.DB.prepare("DELETE FROM model_versions WHERE model_id = ?").bind(modelId),
    env.DB.prepare("DELETE FROM models WHERE id = ?").bind(modelId),
  ]);
  at(t0 + 2 * MODEL_CACHE_TTL_MS - 1500);
  const deleted = counted();
  await cachedModelWithVersions(deleted.db, principal, modelId, undefined, undefined, deleted.defer);
  await deleted.settle();
  await expect(cachedModelWithVersions(createDb(env.DB), principal, modelId)).rejects.toBeInstanceOf(NotFound);
});
