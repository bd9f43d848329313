import type { MiddlewareHandler } from "hono";
import { KEY_USE_RESOLUTION_MS, touchApiKey } from "../auth/key-admin";
import { afterResponse } from "../core/after-response";
import { PRINCIPAL_CACHE_MAX } from "../core/limits";
import { TtlCache } from "../core/ttl-cache";
import type { AppEnv } from "./context";

/** Keys whose use this isolate recorded within the last minute: no write for them. */
const recorded = new TtlCache<true>(KEY_USE_RESOLUTION_MS, PRINCIPAL_CACHE_MAX);

/**
 * After authentication: record the key's `last_used_at`, at most once a minute per key and
 * isolate, in the background (waitUntil), so the warm path waits for no database write.
 */
export const recordKeyUse: MiddlewareHandler<AppEnv> = async (c, next) => {
  const principal = c.get("principal");
  if (principal && !recorded.get(principal.apiKeyId)) {
    recorded.set(principal.apiKeyId, true);
    const db = c.var.db;
    // started after the response: a write begun at once in waitUntil still delays it
    c.executionCtx.waitUntil(
      afterResponse()
        .then(() => touchApiKey(db, principal.apiKeyId))
        .catch(() => recorded.delete(principal.apiKeyId)),
    );
  }
  await next();
};
