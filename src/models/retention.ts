/**
 * Retention of inference files: a finished inference job's input rows (kept so that they can be
 * explained) and its results (in R2, or in D1 for a small sync job) are deleted
 * INFERENCE_FILES_RETENTION_DAYS after it finished, by a daily sweep (the Worker's cron trigger). The job stays listed; its output gains
 * `files_expired_at`, and results and explain then answer 409 saying so.
 *
 * One sweep for every kind of inference job: sync jobs are recorded in D1 only (no job object,
 * to keep the warm path short), so D1 is where all of them can be found. The sweep reads a
 * bounded window (jobs that finished up to SWEEP_WINDOW_DAYS before the cut-off), so its cost
 * does not grow with the history; a sweep missed for less than the window is caught up.
 */
import { and, eq, gte, inArray, isNull, lt, sql } from "drizzle-orm";
import { INFERENCE_FILES_RETENTION_DAYS } from "../core/limits";
import type { Db } from "../db/client";
import { jobs } from "../db/schema";
import { deleteInlineFiles } from "../inference/inline-files";
import { INFERENCE_JOB_TYPES } from "../jobs/types";
import { deletePrefix, jobPrefix } from "../storage/keys";

const DAY_MS = 24 * 60 * 60_000;
const SWEEP_WINDOW_DAYS = 7;
const SWEEP_BATCH = 200;

/** Deletes the files of inference jobs whose retention ended by `nowMs`; answers how many jobs. */
export async function expireInferenceFiles(deps: { db: Db; bucket: R2Bucket }, nowMs = Date.now()): Promise<number> {
  const cutoff = new Date(nowMs - INFERENCE_FILES_RETENTION_DAYS * DAY_MS).toISOString();
  const from = new Date(nowMs - (INFERENCE_FILES_RETENTION_DAYS + SWEEP_WINDOW_DAYS) * DAY_MS).toISOString();
  const expiredAt = new Date(nowMs).toISOString();
  let total = 0;
  for (;;) {
    const due = await deps.db
      .select({ id: jobs.id, orgId: jobs.orgId })
      .from(jobs)
      .where(
        and(
          inArray(jobs.type, [...INFERENCE_JOB_TYPES]),
          gte(jobs.finishedAt, from),
          lt(jobs.finishedAt, cutoff),
          isNull(sql`json_extract(${jobs.outputJson}, '$.files_expired_at')`),
        ),
      )
      .limit(SWEEP_BATCH);
    await deleteInlineFiles(
      deps.db,
      due.map((j) => j.id),
    );
    for (const job of due) {
      await deletePrefix(deps.bucket, jobPrefix(job.orgId, job.id));
      // A later revision, so that a late mirror from a batch job's object cannot undo it.
      await deps.db
        .update(jobs)
        .set({
          outputJson: sql`json_set(coalesce(${jobs.outputJson}, '{}'), '$.files_expired_at', ${expiredAt})`,
          revision: sql`${jobs.revision} + 1`,
        })
        .where(eq(jobs.id, job.id));
    }
    total += due.length;
    if (due.length < SWEEP_BATCH) return total;
  }
}
