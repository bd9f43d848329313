import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { jobs } from "../db/schema";
import type { JobRecord } from "./types";

type JobRow = typeof jobs.$inferSelect;

function toRow(job: JobRecord, revision = 0): JobRow {
  const { input, output, metricsHistory, ...rest } = job;
  return {
    ...rest,
    revision,
    inputJson: input ? JSON.stringify(input) : null,
    outputJson: output ? JSON.stringify(output) : null,
    metricsHistoryJson: metricsHistory ? JSON.stringify(metricsHistory) : null,
  };
}

export function fromRow(row: JobRow): JobRecord {
  const { inputJson, outputJson, metricsHistoryJson, revision: _revision, ...rest } = row;
  return {
    ...rest,
    type: rest.type as JobRecord["type"],
    status: rest.status as JobRecord["status"],
    currentPhase: rest.currentPhase as JobRecord["currentPhase"],
    input: inputJson ? JSON.parse(inputJson) : null,
    output: outputJson ? JSON.parse(outputJson) : null,
    metricsHistory: metricsHistoryJson ? JSON.parse(metricsHistoryJson) : null,
  };
}

/**
 * Write the listing copy of a job (insert or replace the whole row), unless D1 already holds a
 * later revision: mirrors that land out of order never take the copy backwards.
 */
export async function mirrorJob(db: Db, job: JobRecord, revision: number): Promise<void> {
  await mirrorJobStatement(db, job, revision);
}

/** The statement of mirrorJob, for a batch that writes more with it. */
export function mirrorJobStatement(db: Db, job: JobRecord, revision: number) {
  const row = toRow(job, revision);
  const { id, ...update } = row;
  return db
    .insert(jobs)
    .values(row)
    .onConflictDoUpdate({ target: jobs.id, set: update, setWhere: sql`${jobs.revision} < excluded.revision` });
}
