/**
 * Lookups of the request path read the nearest D1 replica first and the primary when the replica
 * does not have what the request needs yet (a key or model created a moment ago).
 */
import { env } from "cloudflare:workers";
import { beforeAll, expect, it } from "vitest";
import { findPrincipal } from "../../src/auth/principal";
import { createDb } from "../../src/db/client";
import { cachedModelWithVersions } from "../../src/models/model-cache";
import { json, newOrg, type TestOrg } from "./helpers";
import { orgWithModel, readyDataset, trainAndWait } from "./model-helpers";

/** A replica handle over the real database, with its queries counted; `lagging` answers no rows. */
function replica(opts: { lagging: boolean }) {
  const calls = { queries: 0 };
  const empty = { results: [], success: true, meta: {} };
  const statement = (s: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(s, {
      get(t, prop) {
        if (prop === "bind") return (...args: unknown[]) => statement(t.bind(...args));
        if (opts.lagging && prop === "raw") return async () => [];
        if (opts.lagging && prop === "all") return async () => empty;
        if (opts.lagging && prop === "first") return async () => null;
        const v = Reflect.get(t, prop);
        return typeof v === "function" ? v.bind(t) : v;
      },
    });
  const d1 = new Proxy(env.DB, {
    get(t, prop) {
      if (prop === "prepare")
        return (sql: string) => {
          calls.queries++;
          return statement(t.prepare(sql));
        };
      const v = Reflect.get(t, prop);
      return typeof v === "function" ? v.bind(t) : v;
    },
  });
  return { db: createDb(d1), calls };
}

/**
 * A replica frozen in the past: each query answers what it answered the first time it was asked
 * (a replica that has not seen the writes since).
 */
function frozenReplica() {
  const seen = new Map<string, unknown>();
  const statement = (s: D1PreparedStatement, key: string): D1PreparedStatement =>
    new Proxy(s, {
      get(t, prop) {
        if (prop === "bind") return (...args: unknown[]) => statement(t.bind(...args), key + JSON.stringify(args));
        if (prop === "raw" || prop === "all")
          return async (...args: unknown[]) => {
            const k = `${String(prop)} ${key}`;
            if (!seen.has(k)) seen.set(k, await (t[prop] as (...a: unknown[]) => Promise<unknown>).apply(t, args));
            return seen.get(k);
          };
        const v = Reflect.get(t, prop);
        return typeof v === "function" ? v.bind(t) : v;
      },
    });
  const d1 = new Proxy(env.DB, {
    get(t, prop) {
      if (prop === "prepare") return (sql: string) => statement(t.prepare(sql), sql);
      const v = Reflect.get(t, prop);
      return typeof v === "function" ? v.bind(t) : v;
    },
  });
  return createDb(d1);
}

let org: TestOrg;
let modelId: string;
beforeAll(async () => {
  ({ org, modelId } = await orgWithModel());
}, 120_000);

it("finds a key on an up-to-date replica", async () => {
  const fresh = await newOrg(); // not in the isolate's principal cache yet
  const r = replica({ lagging: false });
  const p = await findPrincipal(createDb(env.DB), fresh.key, () => r.db);
  expect(p?.orgId).toBe(fresh.orgId);
  expect(r.calls.queries).toBe(1);
});

it("finds a key the replica does not have yet on the primary", async () => {
  const fresh = await newOrg();
  const r = replica({ lagging: true });
  const p = await findPrincipal(createDb(env.DB), fresh.key, () => r.db);
  expect(p?.orgId).toBe(fresh.orgId);
  expect(r.calls.queries).toBe(1);
});

it("finds a model (and its ready version) the replica does not have yet on the primary", async () => {
  const principal = (await findPrincipal(createDb(env.DB), org.key))!;
  const r = replica({ lagging: true });
  const found = await cachedModelWithVersions(createDb(env.DB), principal, modelId, undefined, () => r.db);
  expect(found.model.id).toBe(modelId);
  expect(found.versions.some((v) => v.status === "ready")).toBe(true);
  expect(r.calls.queries).toBe(1);
});

it("a model this isolate deleted is not served again from a replica that has not seen the delete", async () => {
  const ds = await readyDataset(org);
  const doomed = (await trainAndWait(org, { dataset_id: ds.id, label_column: "churned", params: { max_rounds: 3 } })).started.model.id;
  const principal = (await findPrincipal(createDb(env.DB), org.key))!;
  const stale = frozenReplica();
  const before = await cachedModelWithVersions(createDb(env.DB), principal, doomed, undefined, () => stale);
  expect(before.model.id).toBe(doomed);
  expect((await json(`/models/${doomed}`, org, { method: "DELETE" })).status).toBe(204);
  // the frozen replica still answers the model with its ready version
  await expect(cachedModelWithVersions(createDb(env.DB), principal, doomed, undefined, () => stale)).rejects.toThrow(/not found/i);
});
