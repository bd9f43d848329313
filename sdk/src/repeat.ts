/**
 * Which requests the client may send again after getting no answer at all (a connection refused,
 * reset or closed, a broken pipe while sending), and the Idempotency-Key that makes a create one
 * of them. The policy is the Python client's (clients/python): repeat only what cannot do anything
 * twice — a request that surely never reached the service; reads, PUT and DELETE; the POSTs
 * below; and the creates, which carry an Idempotency-Key (the service answers a repeated key with
 * the first answer instead of creating again).
 */

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

/** POSTs that create nothing a repeat would duplicate, so they need no key. */
const REPEATABLE_POSTS = [
  /\/datasets\/[^/]+\/complete$/, // a repeat after a lost answer gets 409 "already completed" (see TabularClient.upload)
  /\/datasets\/[^/]+\/rows\/lookup$/, // a read
  /\/jobs\/[^/]+\/cancel$/, // canceling twice cancels once
  /\/models\/[^/]+\/infer$/, // sync inference: a repeat records one more inference job, changes nothing else
  /\/models\/[^/]+\/estimate-causal-effect$/, // a read
];

const isRepeatablePost = (url: string) => REPEATABLE_POSTS.some((re) => re.test(new URL(url).pathname));

/** A POST that creates something: it gets an Idempotency-Key. */
const isCreate = (method: string, url: string) => method.toUpperCase() === "POST" && !isRepeatablePost(url);

/** Sending this request again after no answer cannot do anything twice. */
export function canRepeat(method: string, url: string, headers: Headers): boolean {
  const m = method.toUpperCase();
  return SAFE_METHODS.has(m) || headers.has("Idempotency-Key") || (m === "POST" && isRepeatablePost(url));
}

/**
 * Give a create an Idempotency-Key when it has none (the caller's key is kept), set on the request
 * itself so that every attempt sends the same one.
 */
export function withIdempotencyKey(req: Request): Request {
  if (isCreate(req.method, req.url) && !req.headers.has("Idempotency-Key")) req.headers.set("Idempotency-Key", crypto.randomUUID());
  return req;
}

// Node's fetch (undici) rejects with `TypeError: fetch failed` whose `cause` (or an AggregateError's
// `errors`, when several addresses were tried) carries one of these codes.
/** The connection could not be opened: the request surely did not reach the service. */
const NEVER_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"]);
/** The connection broke before an answer came: the request may have arrived. */
const LOST = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED", "ETIMEDOUT", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);

/**
 * What a fetch error says about the request: "unsent" (no connection), "lost" (sent, no answer),
 * or null for anything else (an abort, a bad URL…), which is not retried.
 */
export function noAnswer(error: unknown): { kind: "unsent" | "lost"; code: string } | null {
  const seen = new Set<unknown>();
  const todo = [error];
  let lost: string | null = null;
  while (todo.length) {
    const e = todo.pop() as { code?: unknown; cause?: unknown; errors?: unknown } | null | undefined;
    if (!e || typeof e !== "object" || seen.has(e)) continue;
    seen.add(e);
    if (typeof e.code === "string" && NEVER_SENT.has(e.code)) return { kind: "unsent", code: e.code };
    if (typeof e.code === "string" && LOST.has(e.code)) lost ??= e.code;
    todo.push(e.cause, ...(Array.isArray(e.errors) ? e.errors : []));
  }
  return lost ? { kind: "lost", code: lost } : null;
}
