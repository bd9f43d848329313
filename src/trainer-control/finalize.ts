import type { Db } from "../db/client";
import { recordTrained } from "../db/model-versions";
import type { JobRecord, JsonObject } from "../jobs/types";
import { deletePrefix } from "../storage/keys";
import type { TrainingTarget } from "./target";

/**
 * The end of a successful training: the version's metrics and artifact location are recorded,
 * then the job succeeds (its Durable Object turns the version ready). When the job was canceled
 * or restarted meanwhile the success is refused, and the artifacts are removed again, so no
 * version is left ready — or half-written — by a run that no longer counts.
 */
export async function completeTraining(
  deps: { db: Db; bucket: R2Bucket },
  job: JobRecord,
  target: TrainingTarget,
  output: JsonObject,
  succeed: (output: JsonObject, rows: number) => Promise<boolean>,
): Promise<boolean> {
  await recordTrained(deps.db, job.modelVersionId!, {
    metricsJson: JSON.stringify(output.metrics ?? {}),
    summaryJson: output.summary ? JSON.stringify(output.summary) : null,
    artifactKey: target.artifactPrefix,
  });
  const ok = await succeed(output, Number(output.rows ?? 0));
  if (!ok) {
    await recordTrained(deps.db, job.modelVersionId!, { metricsJson: null, summaryJson: null, artifactKey: null });
    await deletePrefix(deps.bucket, target.artifactPrefix);
  }
  return ok;
}
