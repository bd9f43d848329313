/**
 * The warm inference path's model lookup: a model with its versions, kept per isolate for
 * MODEL_CACHE_TTL_MS, so that repeated inference needs no database round trip. A new ready version
 * or a delete made elsewhere is seen within that time; a delete in this isolate at once
 * (forgetModel); a pinned `model_version_id` the cached entry does not know yet is looked up.
 * Missing models are not kept (a model created a moment ago answers at once). With `defer` (the
 * request's waitUntil) an entry near its expiry is looked up again after the response, so a model
 * in steady use never waits for the database.
 */
import type { Principal } from "../auth/principal";
import { afterResponse } from "../core/after-response";
import { NotFound } from "../core/errors";
import { DELETED_REMEMBERED_MS, MODEL_CACHE_MAX, MODEL_CACHE_TTL_MS, MODEL_REFRESH_AHEAD_MS } from "../core/limits";
import { TtlCache } from "../core/ttl-cache";
import type { Db } from "../db/client";
import { findModelWithVersions, type ModelRow, type ModelVersionRow } from "./records";

type ModelWithVersions = { model: ModelRow; versions: ModelVersionRow[] };

const models = new TtlCache<ModelWithVersions>(MODEL_CACHE_TTL_MS, MODEL_CACHE_MAX);
const keyOf = (orgId: string, modelId: string) => `${orgId}/${modelId}`;

export async function cachedModelWithVersions(
  db: Db,
  principal: Principal,
  modelId: string,
  versionId?: string,
  replica?: () => Db,
  defer?: (work: Promise<unknown>) => void,
): Promise<ModelWithVersions> {
  const key = keyOf(principal.orgId, modelId);
  if (deletedHere.get(key)) throw new NotFound();
  const hit = models.get(key);
  if (hit && (!versionId || hit.versions.some((v) => v.id === versionId))) {
    if (defer && models.claimRefresh(key, MODEL_REFRESH_AHEAD_MS)) {
      defer(
        afterResponse()
          .then(() => keep(key, lookup(db, replica, principal, modelId)))
          .catch((e) => {
            if (!(e instanceof NotFound)) console.error(`refreshing cached model ${modelId} failed`, e);
          }),
      );
    }
    return hit;
  }
  return keep(key, lookup(db, replica, principal, modelId, versionId));
}

/** A lookup's answer kept in the cache; a model found gone leaves it. */
async function keep(key: string, looked: Promise<ModelWithVersions>): Promise<ModelWithVersions> {
  try {
    const fresh = await looked;
    // deleted here meanwhile (a refresh runs after other requests may have deleted it): not kept
    if (!deletedHere.get(key)) models.set(key, fresh);
    return fresh;
  } catch (e) {
    if (e instanceof NotFound) models.delete(key);
    throw e;
  }
}

/**
 * From the nearest read replica when it already has what the call needs, else from the primary:
 * a model, version or readiness that is a moment old may not have reached the replica yet. Without
 * a pinned version the replica is trusted only when its newest version is ready: a newer version
 * still training there may already be ready on the primary, and the newest ready one is served.
 */
async function lookup(
  db: Db,
  replica: (() => Db) | undefined,
  principal: Principal,
  modelId: string,
  versionId?: string,
): Promise<ModelWithVersions> {
  if (replica) {
    const near = await findModelWithVersions(replica(), principal, modelId).catch((e) => {
      if (e instanceof NotFound) return null;
      throw e;
    });
    const usable = near && (versionId ? near.versions.some((v) => v.id === versionId && v.status === "ready") : near.versions[0]?.status === "ready");
    if (usable) return near;
  }
  return findModelWithVersions(db, principal, modelId);
}

/**
 * Models this isolate deleted, refused without a lookup: a read replica that has not yet seen the
 * delete would otherwise hand the model back (and into the cache). A delete is final, so
 * remembering it longer than any replica lag is safe.
 */
const deletedHere = new TtlCache<true>(DELETED_REMEMBERED_MS, MODEL_CACHE_MAX);

export function forgetModel(orgId: string, modelId: string): void {
  models.delete(keyOf(orgId, modelId));
  deletedHere.set(keyOf(orgId, modelId), true);
}
