import { and, desc, eq, type SQL } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { Conflict, NotFound } from "../core/errors";
import { SERVICE_RUNTIME_VERSION } from "../core/version";
import { type Db, nowIso } from "../db/client";
import { afterCursor, type PageRequest, toPage } from "../db/cursor";
import { versionRefs } from "../db/dataset-versions";
import { modelVersionRefs } from "../db/model-versions";
import { jobs } from "../db/schema";
import { producedResource } from "./effects";
import { awaitFinishedJob } from "./finished-jobs";
import { parseJobId } from "./ids";
import { type JobNamespace, jobObject } from "./job-object";
import { fromRow } from "./mirror";
import type { JobRecord, JobStatus, JobType } from "./types";

export interface JobDeps {
  db: Db;
  jobs: JobNamespace;
  queue: Queue;
}

export type NewJob = Partial<JobRecord> & { type: JobType };

/**
 * Create a job through its Durable Object (which mirrors it to D1) and, when it is queued,
 * dispatch it. A failed send is not fatal: the object's watchdog dispatches again.
 */
export async function createJob(
  deps: JobDeps,
  principal: Principal,
  fields: NewJob,
  opts: { status?: JobStatus; uploadExpiresAtMs?: number } = {},
): Promise<JobRecord> {
  const job = newJobRecord(principal, fields, opts.status ?? "queued");
  const created = await jobObject(deps.jobs, job.id).create(job, { uploadExpiresAtMs: opts.uploadExpiresAtMs });
  if (created.status === "queued") await dispatch(deps.queue, created.id);
  return created;
}

/**
 * A job that was done before it was recorded (synchronous inference): it is born succeeded and
 * never changes, so it needs no state machine, only its row in D1, which every read of a job
 * falls back to (./finished-jobs writes it). Skipping the Durable Object keeps milliseconds off
 * each call.
 */
export function finishedJobRecord(principal: Principal, fields: NewJob & { status: JobStatus }): JobRecord {
  return newJobRecord(principal, fields, fields.status);
}

function newJobRecord(principal: Principal, fields: NewJob, status: JobStatus): JobRecord {
  const now = nowIso();
  return {
    orgId: principal.orgId,
    status,
    createdAt: now,
    updatedAt: now,
    startedAt: null,
    finishedAt: null,
    principalType: "api_key",
    userId: principal.userId,
    apiKeyId: principal.apiKeyId,
    actorName: principal.actorName,
    modelType: null,
    modelId: null,
    modelVersionId: null,
    datasetId: null,
    datasetVersionId: null,
    datasetName: null,
    inputFilename: null,
    parentJobId: null,
    retryOfJobId: null,
    input: null,
    output: null,
    errorMessage: null,
    serviceRuntimeVersion: SERVICE_RUNTIME_VERSION,
    creditsConsumed: null,
    progress: null,
    currentStep: null,
    totalSteps: null,
    currentPhase: null,
    metricsHistory: null,
    ...fields,
    id: fields.id ?? crypto.randomUUID(),
  };
}

export async function dispatch(queue: Queue, jobId: string, delaySeconds?: number): Promise<void> {
  try {
    await queue.send({ job_id: jobId }, delaySeconds ? { delaySeconds } : undefined);
  } catch (e) {
    console.error(`queue send failed for job ${jobId}; the watchdog will dispatch it again`, e);
  }
}

/**
 * The job as stored for this organization, or 404 (also for another organization's job). A sync
 * inference job asked for right after its answer is waited for (./finished-jobs).
 */
export async function findJob(db: Db, principal: Principal, rawId: string): Promise<JobRecord> {
  const id = parseJobId(rawId);
  if (!id) throw new NotFound();
  const row = await awaitFinishedJob(id, async () => (await db.select().from(jobs).where(eq(jobs.id, id)).limit(1))[0] ?? null);
  if (!row || row.orgId !== principal.orgId) throw new NotFound();
  return fromRow(row);
}

/** Version references a job detail shows, looked up in bulk. */
export interface RefLookup {
  datasetVersions: Map<string, { datasetId: string; version: number; archived: boolean }>;
  modelVersions: Map<string, { modelId: string; version: number }>;
}

/** A job with the versions it references. */
export interface JobWithRefs {
  job: JobRecord;
  refs: RefLookup;
}

/** Live state from the job's object (fresher progress than the D1 copy). */
export async function getJobDetail(deps: JobDeps, principal: Principal, rawId: string): Promise<JobWithRefs> {
  const row = await findJob(deps.db, principal, rawId);
  // a sync inference job was recorded finished, without an object: none to ask
  let live = row.type === "infer_sync" ? row : ((await jobObject(deps.jobs, row.id).get()) ?? row);
  // The retention sweep (models/retention) marks expired files on the D1 copy only.
  if (row.output?.files_expired_at && live.output && !live.output.files_expired_at) {
    live = { ...live, output: { ...live.output, files_expired_at: row.output.files_expired_at } };
  }
  return { job: live, refs: await lookupRefs(deps.db, [live]) };
}

export interface JobFilters extends PageRequest {
  type?: JobType;
  status?: JobStatus;
  model_id?: string;
  dataset_id?: string;
  /** Public (job_…) or plain id of the parent job. */
  parent_job_id?: string;
}

export async function listJobs(db: Db, principal: Principal, f: JobFilters) {
  const where: (SQL | undefined)[] = [eq(jobs.orgId, principal.orgId)];
  if (f.type) where.push(eq(jobs.type, f.type));
  if (f.status) where.push(eq(jobs.status, f.status));
  if (f.model_id) where.push(eq(jobs.modelId, f.model_id));
  if (f.dataset_id) where.push(eq(jobs.datasetId, f.dataset_id));
  if (f.parent_job_id) where.push(eq(jobs.parentJobId, parseJobId(f.parent_job_id) ?? f.parent_job_id));
  where.push(afterCursor(jobs.createdAt, jobs.id, f.cursor));
  const rows = (
    await db
      .select()
      .from(jobs)
      .where(and(...where))
      .orderBy(desc(jobs.createdAt), desc(jobs.id))
      .limit(f.limit + 1)
  ).map(fromRow);
  const refs = await lookupRefs(db, rows);
  return toPage(rows, f.limit, (j): JobWithRefs => ({ job: j, refs }));
}

/** Cancel a queued or running job; a job that has already ended is answered with how it ended. */
export async function cancelJob(deps: JobDeps, principal: Principal, rawId: string) {
  const row = await findJob(deps.db, principal, rawId);
  const result = await jobObject(deps.jobs, row.id).cancel();
  // Best effort, as the interface words it ("job may already be complete"): a job that has
  // already ended stays as it ended, and the answer says how, rather than a 409 for a race that
  // the client cannot avoid (and that a cancel sent twice would always hit).
  return { job_id: row.id, status: result.status ?? row.status };
}

/** Only a failed job can be retried: a new job with the same parameters. */
export async function retryJob(deps: JobDeps, principal: Principal, rawId: string) {
  const row = await findJob(deps.db, principal, rawId);
  const live = (await jobObject(deps.jobs, row.id).get()) ?? row;
  if (live.status !== "failed") throw new Conflict(`Only failed jobs can be retried; this job is ${live.status}.`);
  const produced = await producedResource(deps.db, live);
  if (produced && produced.status !== "failed") throw new Conflict(`This job was already retried: its ${produced.name} is now ${produced.status}.`);
  const job = await createJob(deps, principal, {
    type: live.type,
    modelType: live.modelType,
    modelId: live.modelId,
    modelVersionId: live.modelVersionId,
    datasetId: live.datasetId,
    datasetVersionId: live.datasetVersionId,
    datasetName: live.datasetName,
    inputFilename: live.inputFilename,
    parentJobId: live.parentJobId,
    input: live.input,
    retryOfJobId: live.id,
  });
  return { job_id: job.id, status: job.status };
}

async function lookupRefs(db: Db, list: JobRecord[]): Promise<RefLookup> {
  const dvIds = [...new Set(list.map((j) => j.datasetVersionId).filter((x): x is string => !!x))];
  const mvIds = [...new Set(list.map((j) => j.modelVersionId).filter((x): x is string => !!x))];
  return { datasetVersions: await versionRefs(db, dvIds), modelVersions: await modelVersionRefs(db, mvIds) };
}
