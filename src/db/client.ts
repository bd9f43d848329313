import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

export type Db = DrizzleD1Database<typeof schema>;

export function createDb(d1: D1Database): Db {
  return drizzle(d1, { schema });
}

export const nowIso = () => new Date().toISOString();

/** D1 binds at most 100 parameters per statement: run an IN (...) query over chunks of ids. */
export async function inChunks<T>(ids: string[], query: (chunk: string[]) => Promise<T[]>, size = 90): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += size) out.push(...(await query(ids.slice(i, i + size))));
  return out;
}
