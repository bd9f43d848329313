import { ConnectionFailedError } from "./errors.js";
import { canRepeat, noAnswer } from "./repeat.js";

/** How a client retries: 429 answers, and requests that got no answer at all. */
export interface RetryOptions {
  /** Attempts after the first for a 429 (default 5). */
  retries?: number;
  /** Longest wait between attempts after a 429, in ms (default 60 s). */
  maxDelayMs?: number;
  /** Attempts after the first for a request that got no answer (default 3), when repeating it is safe (src/repeat.ts). */
  unansweredRetries?: number;
  /** Wait before the first of those, doubled at each (default 500 ms). */
  backoffMs?: number;
}

/** Told after an attempt that was sent but got no answer: the next answer may be to a repeat. */
export type OnLost = () => void;

/**
 * `fetch` with retries. A 429 waits what its `Retry-After` says (seconds or an HTTP date), else
 * 1 s, 2 s, 4 s… (not one for failed authentications, `RateLimit-Scope: address`). A request that
 * got no answer (connection refused, reset or closed, a broken pipe) is sent again after 0.5 s,
 * 1 s, 2 s when it surely never arrived or `canRepeat` says a repeat cannot do anything twice;
 * else, or after the last attempt, a ConnectionFailedError is thrown. Other answers, errors
 * included, are the caller's to judge. `make` builds the request anew for each attempt, since a
 * body can be sent only once.
 */
export async function fetchRetrying(make: () => Request, fetchImpl: typeof fetch, opts: RetryOptions = {}, onLost?: OnLost): Promise<Response> {
  const retries = opts.retries ?? 5;
  const maxDelay = opts.maxDelayMs ?? 60_000;
  const unansweredRetries = opts.unansweredRetries ?? 3;
  const backoff = opts.backoffMs ?? 500;
  let limited = 0;
  let unanswered = 0;
  for (;;) {
    const req = make();
    let res: Response;
    try {
      res = await fetchImpl(req);
    } catch (e) {
      const failure = noAnswer(e);
      if (!failure) throw e;
      const repeatable = failure.kind === "unsent" || canRepeat(req.method, req.url, req.headers);
      if (!repeatable || unanswered >= unansweredRetries) {
        throw new ConnectionFailedError(req.method, req.url, failure, unanswered + 1, repeatable, e);
      }
      if (failure.kind === "lost") onLost?.();
      await sleep(backoff * 2 ** unanswered++);
      continue;
    }
    // A 429 for failed authentications means the key is wrong: waiting would not help.
    if (res.status !== 429 || limited >= retries || res.headers.get("RateLimit-Scope") === "address") return res;
    await res.body?.cancel();
    await sleep(Math.min(maxDelay, retryAfterMs(res.headers.get("Retry-After")) ?? 1000 * 2 ** limited));
    limited++;
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
