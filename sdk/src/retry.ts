/** How a client retries answers 429 (rate limited). */
export interface RetryOptions {
  /** Attempts after the first (default 5). */
  retries?: number;
  /** Longest wait between attempts, in ms (default 60 s). */
  maxDelayMs?: number;
}

/**
 * `fetch` that retries a 429, waiting what its `Retry-After` says (seconds or an HTTP date), else
 * 1 s, 2 s, 4 s… (not one for failed authentications, `RateLimit-Scope: address`). Other answers, errors included, are the caller's to judge. `make` builds the
 * request anew for each attempt, since a body can be sent only once.
 */
export async function fetchRetrying(make: () => Request, fetchImpl: typeof fetch, opts: RetryOptions = {}): Promise<Response> {
  const retries = opts.retries ?? 5;
  const maxDelay = opts.maxDelayMs ?? 60_000;
  for (let attempt = 0; ; attempt++) {
    const res = await fetchImpl(make());
    // A 429 for failed authentications means the key is wrong: waiting would not help.
    if (res.status !== 429 || attempt >= retries || res.headers.get("RateLimit-Scope") === "address") return res;
    await res.body?.cancel();
    await sleep(Math.min(maxDelay, retryAfterMs(res.headers.get("Retry-After")) ?? 1000 * 2 ** attempt));
  }
}

/** @internal exported for its unit test (test/sdk/retry.test.ts); not part of the package's API */
export function retryAfterMs(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
