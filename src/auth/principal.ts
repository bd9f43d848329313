import { and, eq, isNull } from "drizzle-orm";
import { afterResponse } from "../core/after-response";
import {
  DELETED_REMEMBERED_MS,
  PRINCIPAL_CACHE_MAX,
  PRINCIPAL_CACHE_TTL_MS,
  PRINCIPAL_REFRESH_AHEAD_MS,
  REPLICA_PRINCIPAL_TTL_MS,
} from "../core/limits";
import { TtlCache } from "../core/ttl-cache";
import type { Db } from "../db/client";
import { apiKeys, users } from "../db/schema";
import { hashApiKey } from "./api-keys";

/** Who is calling: the API key and the organization it belongs to. */
export interface Principal {
  orgId: string;
  apiKeyId: string;
  userId: string | null;
  /** Display name for `actor_name`: the user's name when the key has one, else the key's name. */
  actorName: string;
}

/**
 * Principals of recently seen keys, by the key's hash: a warm request needs no database lookup.
 * Only keys that exist are kept (a new key works at once); a revoked key stops working within
 * PRINCIPAL_CACHE_TTL_MS everywhere, and at once in the isolate that revokes it (forgetKey).
 */
const principals = new TtlCache<Principal>(PRINCIPAL_CACHE_TTL_MS, PRINCIPAL_CACHE_MAX);

/**
 * The principal of a key that exists and is not revoked, or null. With a `replica` handle
 * (db/client createReplicaDb) the key is looked up there first and on the primary when the
 * replica does not know it (a key created a moment ago). With `defer` (the request's waitUntil),
 * a cached principal near its expiry is looked up again after the response, so a key in steady
 * use never waits for the database (a revocation is still seen within the cache's time).
 */
export async function findPrincipal(db: Db, key: string, replica?: () => Db, defer?: (work: Promise<unknown>) => void): Promise<Principal | null> {
  const hash = await hashApiKey(key);
  if (revokedHere.get(hash)) return null;
  const cached = principals.get(hash);
  if (cached) {
    if (defer && principals.claimRefresh(hash, PRINCIPAL_REFRESH_AHEAD_MS)) {
      defer(afterResponse().then(() => lookupAndKeep(db, hash, replica).catch((e) => console.error("refreshing a cached API key failed", e))));
    }
    return cached;
  }
  return lookupAndKeep(db, hash, replica);
}

async function lookupAndKeep(db: Db, hash: string, replica?: () => Db): Promise<Principal | null> {
  const near = replica ? await lookupPrincipal(replica(), hash) : null;
  const found = near ?? (await lookupPrincipal(db, hash));
  // revoked here meanwhile (a refresh runs after other requests may have revoked it): not kept
  if (!found || revokedHere.get(hash)) {
    principals.delete(hash);
    return null;
  }
  principals.set(hash, found, near ? REPLICA_PRINCIPAL_TTL_MS : PRINCIPAL_CACHE_TTL_MS);
  return found;
}

/**
 * Keys this isolate revoked, refused without a lookup: a read replica that has not yet seen the
 * revocation would otherwise hand the key back (and into the cache) for another TTL. Revocation
 * is final, so remembering it longer than any replica lag is safe.
 */
const revokedHere = new TtlCache<true>(DELETED_REMEMBERED_MS, PRINCIPAL_CACHE_MAX);

/** Drops a revoked key from this isolate's cache (by its hash), and refuses it here from now on. */
export function forgetKey(keyHash: string): void {
  principals.delete(keyHash);
  revokedHere.set(keyHash, true);
}

async function lookupPrincipal(db: Db, hash: string): Promise<Principal | null> {
  const rows = await db
    .select({ id: apiKeys.id, orgId: apiKeys.orgId, userId: apiKeys.userId, name: apiKeys.name, userName: users.displayName })
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.userId))
    .where(and(eq(apiKeys.keyHash, hash), isNull(apiKeys.revokedAt)))
    .limit(1);
  const row = rows[0];
  if (!row) return null;
  return { orgId: row.orgId, apiKeyId: row.id, userId: row.userId, actorName: row.userName ?? row.name };
}
