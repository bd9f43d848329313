import type { MiddlewareHandler } from "hono";
import { findPrincipal } from "../auth/principal";
import { bearerToken } from "../auth/secrets";
import { createDb, createReplicaDb, type Db } from "../db/client";
import type { AppEnv } from "./context";
import { notAuthenticated } from "./errors";
import { limitFailedAuth, limitKey } from "./rate-limit";

/**
 * Resolve `Authorization: Bearer <key>` to a principal and count the request against the key's
 * rate limit; a missing or unknown key counts against the client address's failed attempts.
 * `X-API-Key` is taken where `allowXApiKey` says so (one published form of the completion endpoint).
 */
export function authenticate(opts: { allowXApiKey: (path: string) => boolean }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const db = createDb(c.env.DB);
    const key = bearerToken(c.req.header("Authorization")) ?? (opts.allowXApiKey(c.req.path) ? c.req.header("X-API-Key") : undefined);
    // made on first use: a request whose key and model are cached touches no database handle
    let replicaDb: Db | undefined;
    const replica = () => (replicaDb ??= createReplicaDb(c.env.DB));
    const principal = key ? await findPrincipal(db, key, replica, (work) => c.executionCtx.waitUntil(work)) : null;
    if (!principal) {
      await limitFailedAuth(c.env, c.req.header("CF-Connecting-IP"));
      throw notAuthenticated();
    }
    await limitKey(c.env, principal.apiKeyId);
    c.set("principal", principal);
    c.set("db", db);
    c.set("replica", replica);
    await next();
  };
}
