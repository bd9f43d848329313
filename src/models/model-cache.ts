/**
 * The warm inference path's model lookup: a model with its versions, kept per isolate for
 * MODEL_CACHE_TTL_MS, so that repeated inference needs no database round trip. A new ready version
 * or a delete made elsewhere is seen within that time; a delete in this isolate at once
 * (forgetModel); a pinned `model_version_id` the cached entry does not know yet is looked up.
 * Missing models are not kept (a model created a moment ago answers at once).
 */
import type { Principal } from "../auth/principal";
import { MODEL_CACHE_MAX, MODEL_CACHE_TTL_MS } from "../core/limits";
import { TtlCache } from "../core/ttl-cache";
import type { Db } from "../db/client";
import { findModelWithVersions, type ModelRow, type ModelVersionRow } from "./records";

type ModelWithVersions = { model: ModelRow; versions: ModelVersionRow[] };

const models = new TtlCache<ModelWithVersions>(MODEL_CACHE_TTL_MS, MODEL_CACHE_MAX);
const keyOf = (orgId: string, modelId: string) => `${orgId}/${modelId}`;

export async function cachedModelWithVersions(db: Db, principal: Principal, modelId: string, versionId?: string): Promise<ModelWithVersions> {
  const key = keyOf(principal.orgId, modelId);
  const hit = models.get(key);
  if (hit && (!versionId || hit.versions.some((v) => v.id === versionId))) return hit;
  const fresh = await findModelWithVersions(db, principal, modelId);
  models.set(key, fresh);
  return fresh;
}

export function forgetModel(orgId: string, modelId: string): void {
  models.delete(keyOf(orgId, modelId));
}
