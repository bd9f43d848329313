import { and, eq, lt, type SQL } from "drizzle-orm";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Principal } from "../auth/principal";
import { Conflict } from "../core/errors";
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
 */
export async function idempotent<T>(
  db: Db,
  principal: Principal,
  route: string,
  key: string | undefined,
  fn: () => Promise<StoredResponse<T>>,
): Promise<StoredResponse<T>> {
  if (!key) return fn();
  const where = and(eq(idempotencyKeys.orgId, principal.orgId), eq(idempotencyKeys.route, route), eq(idempotencyKeys.key, key));
  const now = Date.now();
  await db.delete(idempotencyKeys).where(and(where, lt(idempotencyKeys.createdAt, new Date(now - KEEP_MS).toISOString())));
  const reserved = await db
    .insert(idempotencyKeys)
    .values({ orgId: principal.orgId, route, key, statusCode: 0, responseJson: "null", createdAt: new Date(now).toISOString() })
    .onConflictDoNothing()
    .returning();
  if (reserved.length === 0) {
    const [row] = await db.select().from(idempotencyKeys).where(where).limit(1);
    if (row && row.statusCode !== 0) return { status: row.statusCode as ContentfulStatusCode, body: JSON.parse(row.responseJson) as T };
    if (!row || !(await takeOverAbandoned(db, where, row.createdAt, now))) {
      throw new Conflict("A request with this Idempotency-Key is still in progress.");
    }
  }
  try {
    const res = await fn();
    await db
      .update(idempotencyKeys)
      .set({ statusCode: res.status, responseJson: JSON.stringify(res.body) })
      .where(where);
    return res;
  } catch (e) {
    await db.delete(idempotencyKeys).where(where);
    throw e;
  }
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
