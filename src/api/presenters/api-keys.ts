import type { ApiKeyInfo } from "../../auth/key-admin";

/** A key as the API shows it (never its secret nor its hash). */
export function presentApiKey(k: ApiKeyInfo) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    created_at: k.createdAt,
    revoked_at: k.revokedAt,
    last_used_at: k.lastUsedAt,
    current: k.current,
  };
}
