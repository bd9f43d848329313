import { and, eq, lt, type SQL } from "drizzle-orm";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Principal } from "../auth/principal";
import { Conflict, InvalidInput } from "../core/errors";
import { IDEMPOTENCY_ABANDONED_AFTER_MS as ABANDONED_AFTER_MS, IDEMPOTENCY_KEEP_MS as KEEP_MS } from "../core/limits";
import type { Db } from "../db/client";
import { idempotencyKeys } from "../db/schema";

/** An answer as remembered for its key; `body` is typed by the route that made it. */
export interface StoredResponse<T> {
  status: ContentfulStatusCode;
  body: T;
}

/**
 * Run `fn` once per (organization, route, Idempotency-Key): a repeated request gets the first
 * response back and creates nothing. The key is reserved before the work so that two concurrent
 * requests with the same key cannot both do it; a failed attempt releases the key, and a
 * reservation whose request died without releasing it is taken over after a few minutes.
 * `request` is what was asked (the validated body): as Stripe does, a key reused with other
 * parameters is refused rather than answered with the first request's response.
 * `remember` is what a repeat gets back, when it must differ from the first answer (a secret
 * shown once is not stored); by default the first answer itself.
 */
export async function idempotent<T, R = T>(
  db: Db,
  principal: Principal,
  route: string,
  key: string | undefined,
  request: unknown,
  fn: () => Promise<StoredResponse<T>>,
  remember: (res: StoredResponse<T>) => StoredResponse<R> = (res) => res as unknown as StoredResponse<R>,
): Promise<StoredResponse<T | R>> {
  if (!key) return fn();
  const fingerprint = await requestFingerprint(request);
  const where = and(eq(idempotencyKeys.orgId, principal.orgId), eq(idempotencyKeys.route, route), eq(idempotencyKeys.key, key));
  const now = Date.now();
  await db.delete(idempotencyKeys).where(and(where, lt(idempotencyKeys.createdAt, new Date(now - KEEP_MS).toISOString())));
  const reserved = await db
    .insert(idempotencyKeys)
    .values({ orgId: principal.orgId, route, key, statusCode: 0, responseJson: stored(fingerprint, null), createdAt: new Date(now).toISOString() })
    .onConflictDoNothing()
    .returning();
  if (reserved.length === 0) {
    const [row] = await db.select().from(idempotencyKeys).where(where).limit(1);
    const previous = row ? parseStored(row.responseJson) : undefined;
    if (previous?.fingerprint !== undefined && previous.fingerprint !== fingerprint) throw keyReused(key);
    if (row && row.statusCode !== 0) return { status: row.statusCode as ContentfulStatusCode, body: previous?.body as R };
    if (!row || !(await takeOverAbandoned(db, where, row.createdAt, now))) {
      throw new Conflict("A request with this Idempotency-Key is still in progress.");
    }
  }
  try {
    const res = await fn();
    const kept = remember(res);
    await db
      .update(idempotencyKeys)
      .set({ statusCode: kept.status, responseJson: stored(fingerprint, kept.body) })
      .where(where);
    return res;
  } catch (e) {
    await db.delete(idempotencyKeys).where(where);
    throw e;
  }
}

const keyReused = (key: string) =>
  new InvalidInput([
    {
      path: ["idempotency-key"],
      part: "header",
      message: "This Idempotency-Key was already used with different parameters; use a new key for a different request.",
      type: "idempotency_key_reused",
      input: key,
    },
  ]);

/** What a key's row holds: the request's fingerprint and, once answered, the response body. */
const stored = (fingerprint: string, body: unknown) => JSON.stringify({ fingerprint, response: body });

/** Rows written before fingerprints were kept hold the bare response body (no fingerprint to compare). */
function parseStored(json: string): { fingerprint?: string; body: unknown } {
  const value = JSON.parse(json) as unknown;
  if (value && typeof value === "object" && "fingerprint" in value && "response" in value) {
    const v = value as { fingerprint: string; response: unknown };
    return { fingerprint: v.fingerprint, body: v.response };
  }
  return { body: value };
}

/** SHA-256 of the request in a canonical form: object keys sorted, a file by its name, type and bytes. */
async function requestFingerprint(request: unknown): Promise<string> {
  const canonical = await canonicalize(request);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(canonical)));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function canonicalize(value: unknown): Promise<unknown> {
  if (value instanceof Blob) {
    const digest = await crypto.subtle.digest("SHA-256", await value.arrayBuffer());
    const name = value instanceof File ? value.name : "";
    return { file: name, type: value.type, sha256: [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("") };
  }
  if (Array.isArray(value)) return Promise.all(value.map(canonicalize));
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(await Promise.all(entries.map(async ([k, v]) => [k, await canonicalize(v)] as const)));
  }
  return value;
}

/** Claim a reservation older than ABANDONED_AFTER_MS (compare-and-set on its timestamp). */
async function takeOverAbandoned(db: Db, where: SQL | undefined, createdAt: string, now: number): Promise<boolean> {
  if (now - Date.parse(createdAt) < ABANDONED_AFTER_MS) return false;
  const claimed = await db
    .update(idempotencyKeys)
    .set({ createdAt: new Date(now).toISOString() })
    .where(and(where, eq(idempotencyKeys.statusCode, 0), eq(idempotencyKeys.createdAt, createdAt)))
    .returning();
  return claimed.length > 0;
}
