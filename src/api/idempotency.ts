import { and, eq } from "drizzle-orm";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Db } from "../db/client";
import { idempotencyKeys } from "../db/schema";
import type { Principal } from "./context";
import { conflict } from "./errors";

export interface StoredResponse {
  status: ContentfulStatusCode;
  body: unknown;
}

/**
 * Run `fn` once per (organization, route, Idempotency-Key): a repeated request gets the first
 * response back and creates nothing. The key is reserved before the work so that two concurrent
 * requests with the same key cannot both do it; a failed attempt releases the key.
 */
export async function idempotent(
  db: Db,
  principal: Principal,
  route: string,
  key: string | undefined,
  fn: () => Promise<StoredResponse>,
): Promise<StoredResponse> {
  if (!key) return fn();
  const where = and(eq(idempotencyKeys.orgId, principal.orgId), eq(idempotencyKeys.route, route), eq(idempotencyKeys.key, key));
  const reserved = await db
    .insert(idempotencyKeys)
    .values({ orgId: principal.orgId, route, key, statusCode: 0, responseJson: "null" })
    .onConflictDoNothing()
    .returning();
  if (reserved.length === 0) {
    const [row] = await db.select().from(idempotencyKeys).where(where).limit(1);
    if (!row || row.statusCode === 0) throw conflict("A request with this Idempotency-Key is still in progress.");
    return { status: row.statusCode as ContentfulStatusCode, body: JSON.parse(row.responseJson) };
  }
  try {
    const res = await fn();
    await db.update(idempotencyKeys).set({ statusCode: res.status, responseJson: JSON.stringify(res.body) }).where(where);
    return res;
  } catch (e) {
    await db.delete(idempotencyKeys).where(where);
    throw e;
  }
}
