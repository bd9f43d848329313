import { and, eq, isNull } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import { hashApiKey } from "../auth/api-keys";
import { createDb, type Db } from "../db/client";
import { apiKeys, users } from "../db/schema";
import type { AppEnv, Principal } from "./context";
import { ApiError, notAuthenticated } from "./errors";

/** Resolve `Authorization: Bearer <key>` (or `X-API-Key` where allowed) to a principal. */
export function authenticate(opts: { allowXApiKey?: boolean } = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // Several patterns can match one path (e.g. `/api/*` and `/api/datasets/:id/complete`): the
    // first that authenticates wins, so a later, stricter one neither refuses X-API-Key where it
    // is allowed nor counts the request against the rate limit a second time.
    if (c.get("principal")) return next();
    const db = createDb(c.env.DB);
    const key = bearerToken(c.req.header("Authorization")) ?? (opts.allowXApiKey ? c.req.header("X-API-Key") : undefined);
    if (!key) throw notAuthenticated();
    const principal = await findPrincipal(db, key);
    if (!principal) throw notAuthenticated();
    await enforceRateLimit(c.env.RATE_LIMITER, principal.apiKeyId);
    c.set("principal", principal);
    c.set("db", db);
    await next();
  };
}

function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

export async function findPrincipal(db: Db, key: string): Promise<Principal | null> {
  const hash = await hashApiKey(key);
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

const RETRY_AFTER_S = "10";

async function enforceRateLimit(limiter: RateLimit, key: string): Promise<void> {
  const { success } = await limiter.limit({ key });
  if (!success) {
    throw new ApiError(429, `Rate limit exceeded; retry after a short delay (${RETRY_AFTER_S} s).`, {
      "Retry-After": RETRY_AFTER_S,
    });
  }
}
