import { and, desc, eq, isNull, lt, or } from "drizzle-orm";
import { NotFound } from "../core/errors";
import { type Db, nowIso } from "../db/client";
import { afterCursor, type PageRequest, toPage } from "../db/cursor";
import { apiKeys } from "../db/schema";
import { generateApiKey, hashApiKey } from "./api-keys";
import { forgetKey, type Principal } from "./principal";

/** What the API shows of a key: never the key itself nor its hash. */
export interface ApiKeyInfo {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
  /** When it last authenticated a request (to the minute); null if never since tracking began. */
  lastUsedAt: string | null;
  /** True for the key that made the request. */
  current: boolean;
}

/** Characters of the key kept in clear to recognise it in a list ("sk_" and 7 more). */
const PREFIX_LENGTH = 10;

/** A new key of the caller's organization, owned by the caller's user (if any); the secret is returned once. */
export async function createApiKey(db: Db, principal: Principal, name: string): Promise<ApiKeyInfo & { key: string }> {
  const key = generateApiKey();
  const row = {
    id: crypto.randomUUID(),
    orgId: principal.orgId,
    userId: principal.userId,
    name,
    keyHash: await hashApiKey(key),
    prefix: key.slice(0, PREFIX_LENGTH),
    createdAt: nowIso(),
    revokedAt: null,
    lastUsedAt: null,
  };
  await db.insert(apiKeys).values(row);
  return { ...present(row, principal), key };
}

/** The organization's keys, revoked ones included, newest first. */
export async function listApiKeys(db: Db, principal: Principal, page: PageRequest) {
  const rows = await db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      prefix: apiKeys.prefix,
      createdAt: apiKeys.createdAt,
      revokedAt: apiKeys.revokedAt,
      lastUsedAt: apiKeys.lastUsedAt,
    })
    .from(apiKeys)
    .where(and(eq(apiKeys.orgId, principal.orgId), afterCursor(apiKeys.createdAt, apiKeys.id, page.cursor)))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
    .limit(page.limit + 1);
  return toPage(rows, page.limit, (r) => present(r, principal));
}

/**
 * Revoke one of the organization's keys (another organization's id is not found). Revoking a
 * revoked key changes nothing. Any key may be revoked, the caller's own and the last one
 * included: the organization then needs `npm run key:create` for a new one. This isolate forgets
 * the key at once; the others within their principal cache's TTL.
 */
export async function revokeApiKey(db: Db, principal: Principal, id: string): Promise<void> {
  const [row] = await db
    .select({ keyHash: apiKeys.keyHash })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, id), eq(apiKeys.orgId, principal.orgId)))
    .limit(1);
  if (!row) throw new NotFound();
  await db
    .update(apiKeys)
    .set({ revokedAt: nowIso() })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)));
  forgetKey(row.keyHash);
}

/** How stale `last_used_at` may get: it is written at most this often per key (and per isolate). */
export const KEY_USE_RESOLUTION_MS = 60_000;

/** Record that a key authenticated a request now, unless that was already recorded within the minute. */
export async function touchApiKey(db: Db, id: string, now = Date.now()): Promise<void> {
  const stale = new Date(now - KEY_USE_RESOLUTION_MS).toISOString();
  await db
    .update(apiKeys)
    .set({ lastUsedAt: new Date(now).toISOString() })
    .where(and(eq(apiKeys.id, id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, stale))));
}

type KeyRow = Omit<ApiKeyInfo, "current">;

function present(r: KeyRow, principal: Principal): ApiKeyInfo {
  return { ...r, current: r.id === principal.apiKeyId };
}
