/**
 * Writing the records of jobs that finished before they were recorded (synchronous inference)
 * after the response: per isolate, the records of a burst of calls go to D1 in one batch (see
 * ../core/write-behind), each with the rows that belong to it (its inline files).
 */
import type { BatchItem } from "drizzle-orm/batch";
import { AFTER_RESPONSE_MS } from "../core/after-response";
import { WriteBehind } from "../core/write-behind";
import type { Db } from "../db/client";
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
