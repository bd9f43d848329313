/**
 * A trainer process that starts (after a crash, or the first time) holds no work: the jobs it
 * was running are lost with it. Told so by the trainer itself (`POST /internal/trainer/started`),
 * the Worker restarts those jobs at once, instead of waiting for the heartbeat timeout. This is
 * the local set-up's single trainer (`npm start` supervises and restarts it); in production each
 * job has its own container, whose loss the watchdog notices.
 *
 * Which running jobs were on the trainer follows the routing rules: every training, batch
 * inference over a stored dataset, and ingestion of uploads over the Worker's limit. (A small
 * upload the Worker found too large and handed over is left to the watchdog.)
 */
import { and, eq, inArray } from "drizzle-orm";
import { WORKER_INGEST_MAX_BYTES } from "../core/limits";
import { jobs } from "../db/schema";
import { jobObject } from "../jobs/job-object";
import { fromRow } from "../jobs/mirror";
import type { JobRecord } from "../jobs/types";
import type { ControlDeps } from "./control-scope";

function ranOnTrainer(job: JobRecord): boolean {
  if (job.type === "train") return true;
  if (job.type === "infer_batch") return job.input?.source === "dataset";
  if (job.type === "dataset_ingest") return Number(job.input?.bytes ?? 0) > WORKER_INGEST_MAX_BYTES;
  return false;
}

/** Restarts (or fails, on their last attempt) the running jobs a restarted trainer lost; answers how many. */
export async function restartLostJobs(deps: Pick<ControlDeps, "db" | "jobs">): Promise<number> {
  const rows = await deps.db
    .select()
    .from(jobs)
    .where(and(eq(jobs.status, "running"), inArray(jobs.type, ["train", "infer_batch", "dataset_ingest"])));
  let restarted = 0;
  for (const job of rows.map(fromRow).filter(ranOnTrainer)) {
    if (await jobObject(deps.jobs, job.id).workerLost("The trainer process restarted and lost this job")) restarted++;
  }
  return restarted;
}
