/**
 * A trainer process that starts (after a crash, or the first time) holds no work: the jobs it
 * was running are lost with it. Told so by the trainer itself (`POST /internal/trainer/started`),
 * the Worker restarts those jobs at once, instead of waiting for the heartbeat timeout. This is
 * the local set-up's single trainer (`npm start` supervises and restarts it); in production each
 * job has its own container, whose loss the watchdog notices.
 *
 * Which running jobs were on the trainer follows the routing rules of each kind (./job-kinds):
 * every training, batch inference over a stored dataset, and ingestion of uploads over the
 * Worker's limit.
 */
import { and, eq, inArray } from "drizzle-orm";
import { TRAINER_JOB_KINDS, type TrainerJobKind } from "../container/wire";
import { jobs } from "../db/schema";
import { jobObject } from "../jobs/job-object";
import { fromRow } from "../jobs/mirror";
import type { JobRecord } from "../jobs/types";
import type { ControlDeps } from "./control-scope";
import { TRAINER_KINDS } from "./job-kinds";

const ranOnTrainer = (job: JobRecord) => TRAINER_KINDS[job.type as TrainerJobKind]?.ranOnTrainer(job) ?? false;

/** Restarts (or fails, on their last attempt) the running jobs a restarted trainer lost; answers how many. */
export async function restartLostJobs(deps: Pick<ControlDeps, "db" | "jobs">): Promise<number> {
  const rows = await deps.db
    .select()
    .from(jobs)
    .where(and(eq(jobs.status, "running"), inArray(jobs.type, [...TRAINER_JOB_KINDS])));
  let restarted = 0;
  for (const job of rows.map(fromRow).filter(ranOnTrainer)) {
    if (await jobObject(deps.jobs, job.id).workerLost("The trainer process restarted and lost this job")) restarted++;
  }
  return restarted;
}
