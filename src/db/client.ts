import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

export type Db = DrizzleD1Database<typeof schema>;

export function createDb(d1: D1Database): Db {
  return drizzle(d1, { schema });
}

/**
 * A handle whose reads may be served by the nearest D1 read replica (the Sessions API,
 * "first-unconstrained": no ordering with this request's own earlier writes). For the lookups of
 * the request path only (API key, model): from a far edge location the primary is a trip across
 * the world, a replica is near. A replica may lag its primary by a moment, so callers read the
 * primary when the replica does not have what they need (a key or a model created just now).
 * Without replication enabled on the database every read goes to the primary, as before.
 */
export function createReplicaDb(d1: D1Database): Db {
  // drizzle's D1 driver only prepares and batches statements, which a session does as the database does
  return drizzle(d1.withSession("first-unconstrained") as unknown as D1Database, { schema });
}

export const nowIso = () => new Date().toISOString();

/** D1 binds at most 100 parameters per statement: run an IN (...) query over chunks of ids. */
export async function inChunks<T>(ids: string[], query: (chunk: string[]) => Promise<T[]>, size = 90): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += size) out.push(...(await query(ids.slice(i, i + size))));
  return out;
}
