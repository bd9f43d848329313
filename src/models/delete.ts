import { and, eq, notInArray } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { deleteVersionsOfModelStatement } from "../db/model-versions";
import { jobs, models } from "../db/schema";
import { jobObject } from "../jobs/job-object";
import type { JobDeps } from "../jobs/service";
import { TERMINAL_STATUSES } from "../jobs/types";
import { deletePrefix, modelPrefix } from "../storage/keys";
import { forgetModel } from "./model-cache";
import { findModel } from "./records";

/**
 * Permanently remove a model, its versions and their artifacts. Unfinished training jobs are
 * canceled first so that none writes an artifact after the model is gone; job records stay.
 */
export async function deleteModel(deps: JobDeps & { bucket: R2Bucket }, principal: Principal, id: string): Promise<void> {
  const m = await findModel(deps.db, principal, id);
  const open = await deps.db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.modelId, m.id), notInArray(jobs.status, TERMINAL_STATUSES)));
  for (const j of open) await jobObject(deps.jobs, j.id).cancel();
  await deletePrefix(deps.bucket, modelPrefix(principal.orgId, m.id));
  await deps.db.batch([deleteVersionsOfModelStatement(deps.db, m.id), deps.db.delete(models).where(eq(models.id, m.id))]);
  forgetModel(principal.orgId, m.id);
}
