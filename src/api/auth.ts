import type { MiddlewareHandler } from "hono";
import { findPrincipal } from "../auth/principal";
import { bearerToken } from "../auth/secrets";
import { RATE_LIMIT_RETRY_AFTER_S } from "../core/limits";
import { createDb } from "../db/client";
import type { AppEnv } from "./context";
import { HttpError, notAuthenticated } from "./errors";

/**
 * Resolve `Authorization: Bearer <key>` to a principal and count the request against the key's
 * rate limit. `X-API-Key` is taken where `allowXApiKey` says so (one published form of the
 * completion endpoint).
 */
export function authenticate(opts: { allowXApiKey: (path: string) => boolean }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const db = createDb(c.env.DB);
    const key = bearerToken(c.req.header("Authorization")) ?? (opts.allowXApiKey(c.req.path) ? c.req.header("X-API-Key") : undefined);
    if (!key) throw notAuthenticated();
    const principal = await findPrincipal(db, key);
    if (!principal) throw notAuthenticated();
    const { success } = await c.env.RATE_LIMITER.limit({ key: principal.apiKeyId });
    if (!success) {
      throw new HttpError(429, `Rate limit exceeded; retry after a short delay (${RATE_LIMIT_RETRY_AFTER_S} s).`, {
        "Retry-After": String(RATE_LIMIT_RETRY_AFTER_S),
      });
    }
    c.set("principal", principal);
    c.set("db", db);
    await next();
  };
}
