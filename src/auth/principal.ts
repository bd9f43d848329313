import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../db/client";
import { apiKeys, users } from "../db/schema";
import { hashApiKey } from "./api-keys";

/** Who is calling: the API key and the organization it belongs to. */
export interface Principal {
  orgId: string;
  apiKeyId: string;
  userId: string | null;
  /** Display name for `actor_name`: the user's name when the key has one, else the key's name. */
  actorName: string;
}

/** The principal of a key that exists and is not revoked, or null. */
export async function findPrincipal(db: Db, key: string): Promise<Principal | null> {
  const hash = await hashApiKey(key);
  const rows = await db
    .select({ id: apiKeys.id, orgId: apiKeys.orgId, userId: apiKeys.userId, name: apiKeys.name, userName: users.displayName })
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.userId))
    .where(and(eq(apiKeys.keyHash, hash), isNull(apiKeys.revokedAt)))
    .limit(1);
  const row = rows[0];
  if (!row) return null;
  return { orgId: row.orgId, apiKeyId: row.id, userId: row.userId, actorName: row.userName ?? row.name };
}
