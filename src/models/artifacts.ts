import type { Principal } from "../auth/principal";
import { Conflict, NotFound } from "../core/errors";
import type { Db } from "../db/client";
import { versionOfModel } from "../db/model-versions";
import { isUuid } from "../jobs/ids";
import { ARTIFACT_FILES } from "../storage/keys";
import { findModel, type ModelVersionRow } from "./records";

/** A version of the model by number ("3") or by id; 404 when the model has no such version. */
export async function findModelVersion(db: Db, principal: Principal, modelId: string, ref: string): Promise<ModelVersionRow> {
  const m = await findModel(db, principal, modelId);
  const byNumber = /^[1-9][0-9]{0,8}$/.test(ref);
  if (!byNumber && !isUuid(ref)) throw new NotFound();
  const v = await versionOfModel(db, m.id, byNumber ? { number: Number(ref) } : { id: ref });
  if (!v) throw new NotFound();
  return v;
}

/** The stored bytes of a ready version's artifact: the ONNX graph, its featurizer (JSON), a search index. */
export async function readArtifact(bucket: R2Bucket, v: ModelVersionRow, part: keyof typeof ARTIFACT_FILES) {
  if (v.status !== "ready" || !v.artifactKey) throw new Conflict(`Model version ${v.version} is ${v.status}; only ready versions have artifacts.`);
  const file = ARTIFACT_FILES[part];
  const obj = await bucket.get(v.artifactKey + file);
  if (!obj) {
    if (part === "index") throw new NotFound("This model version has no index (only search models have one).");
    if (part === "summary") throw new NotFound("This model version has no summary file (prediction models have none).");
    if (part === "pseudo_outcomes") throw new NotFound("This model version has no pseudo-outcomes (only causal models have them).");
    throw new NotFound();
  }
  return {
    body: obj.body,
    size: obj.size,
    filename: `model-v${v.version}-${file}`,
    contentType: part === "featurizer" || part === "summary" ? "application/json" : "application/octet-stream",
  };
}
