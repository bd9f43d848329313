/**
 * Rate limits, in one place: requests per API key (RATE_LIMITER) and failed authentications per
 * client address (AUTH_FAILURE_LIMITER, so that guessing keys is throttled too). Both bindings
 * count in fixed windows of RATE_LIMIT_PERIOD_S (wrangler.toml) aligned to the clock, so the time
 * until a request passes again is the time left in the current window: that is the Retry-After.
 */
import { RATE_LIMIT_PERIOD_S } from "../core/limits";
import { HttpError } from "./errors";

/** Count a request of this API key; over the limit, a 429 saying when to retry. */
export async function limitKey(env: Env, apiKeyId: string, now = Date.now()): Promise<void> {
  const { success } = await env.RATE_LIMITER.limit({ key: apiKeyId });
  if (!success) throw tooMany("Rate limit exceeded for this API key", now, "key");
}

/**
 * Count a failed authentication from this client (Cloudflare's CF-Connecting-IP; requests without
 * it, which production never receives, are not counted). Over the limit, a 429 instead of the 401.
 */
export async function limitFailedAuth(env: Env, clientAddress: string | undefined, now = Date.now()): Promise<void> {
  if (!clientAddress) return;
  const { success } = await env.AUTH_FAILURE_LIMITER.limit({ key: clientAddress });
  if (!success) throw tooMany("Too many failed authentications from this address", now, "address");
}

/**
 * Whole seconds until the current window ends (at least 1).
 * @internal exported for its unit test (test/worker/rate-limit.test.ts)
 */
export function secondsUntilWindowEnds(now: number): number {
  const periodMs = RATE_LIMIT_PERIOD_S * 1000;
  return Math.max(1, Math.ceil((periodMs - (now % periodMs)) / 1000));
}

/**
 * `RateLimit-Scope` says which limit answered: `key` (waiting helps) or `address` (failed
 * authentications: the key is wrong, since a right one passes even then, so clients should not
 * wait and retry but report it).
 */
const RATE_LIMIT_SCOPE_HEADER = "RateLimit-Scope";

function tooMany(what: string, now: number, scope: "key" | "address"): HttpError {
  const wait = secondsUntilWindowEnds(now);
  return new HttpError(429, `${what}; retry after ${wait} s.`, { "Retry-After": String(wait), [RATE_LIMIT_SCOPE_HEADER]: scope });
}
