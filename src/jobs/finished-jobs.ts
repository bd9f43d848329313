/**
 * Writing the records of jobs that finished before they were recorded (synchronous inference)
 * after the response: per isolate, the records of a burst of calls go to D1 in one batch (see
 * ../core/write-behind), each with the rows that belong to it (its inline files). And reading
 * them back at once: a client may ask for the job the moment it has the answer, from any isolate,
 * before the record has landed; such a read waits for it (awaitFinishedJob).
 */
import type { BatchItem } from "drizzle-orm/batch";
import { AFTER_RESPONSE_MS } from "../core/after-response";
import { FINISHED_JOB_RECORD_WAIT_MS } from "../core/limits";
import { WriteBehind } from "../core/write-behind";
import type { Db } from "../db/client";
import { writtenBehindAt } from "./ids";
import { mirrorJobStatement } from "./mirror";
import type { JobRecord } from "./types";

export interface FinishedJob {
  job: JobRecord;
  /** Rows written in the same batch as the job (built for the writing request's database). */
  alongside?: (db: Db) => BatchItem<"sqlite">[];
}

const statements = (db: Db, f: FinishedJob): BatchItem<"sqlite">[] => [mirrorJobStatement(db, f.job, 1), ...(f.alongside?.(db) ?? [])];

/**
 * One batch for all; if it fails (a batch is one transaction), each job alone, so that one bad
 * row does not lose the others' records. Failures are logged: the caller's answer is long gone.
 * @internal exported for its unit test (test/worker/finished-jobs.test.ts)
 */
export async function writeFinishedJobs(db: Db, finished: FinishedJob[]): Promise<void> {
  try {
    const [first, ...rest] = finished.flatMap((f) => statements(db, f));
    await db.batch([first, ...rest]);
    return;
  } catch (e) {
    if (finished.length === 1) {
      console.error(`recording job ${finished[0].job.id} failed`, e);
      return;
    }
  }
  for (const f of finished) {
    try {
      const [first, ...rest] = statements(db, f);
      await db.batch([first, ...rest]);
    } catch (e) {
      console.error(`recording job ${f.job.id} failed`, e);
    }
  }
}

/**
 * At most 20 jobs a batch: with their inline files that is up to 40 statements, under the 50
 * queries a Worker invocation may make on D1's free plan (1,000 on paid).
 */
const behind = new WriteBehind<FinishedJob, Db>(writeFinishedJobs, { delayMs: AFTER_RESPONSE_MS, maxItems: 20 });

/**
 * Leaves a finished job to be recorded after the response. Returns the write to hand to the
 * request's waitUntil when this call scheduled one, or null when a write already scheduled by an
 * earlier request of this isolate will carry it.
 */
export function recordFinishedJob(db: Db, finished: FinishedJob): Promise<void> | null {
  return behind.add(db, finished);
}

/** Pauses between reads while waiting for a record: at least this, at most MAX. */
const MIN_PAUSE_MS = 10;
const MAX_PAUSE_MS = 1000;

/**
 * The record of job `id` read by `read`, waiting for it when the id is one of a job recorded after
 * its answer (./ids) that is young enough for its record to be still on its way: reads again
 * after pauses of half the job's age (so a record is found within about half its delay again, in
 * a few reads) until FINISHED_JOB_RECORD_WAIT_MS after the id was made. Null when there is none.
 * The writer is in another isolate as likely as in this one, so the only place to look is D1.
 */
export async function awaitFinishedJob<T>(id: string, read: () => Promise<T | null>): Promise<T | null> {
  const found = await read();
  const madeAt = writtenBehindAt(id);
  if (found || madeAt === null) return found;
  // an id made "later" than now (another machine's clock, or made up) waits no longer than a new one
  const deadline = Math.min(madeAt, Date.now()) + FINISHED_JOB_RECORD_WAIT_MS;
  while (Date.now() < deadline) {
    const age = Math.max(0, Date.now() - madeAt);
    const pause = Math.min(MAX_PAUSE_MS, Math.max(MIN_PAUSE_MS, age / 2), deadline - Date.now());
    await new Promise((resolve) => setTimeout(resolve, pause));
    const later = await read();
    if (later) return later;
  }
  return null;
}
