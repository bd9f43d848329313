import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { jobs } from "../db/schema";
import type { JobRecord } from "./types";

type JobRow = typeof jobs.$inferSelect;

export function toRow(job: JobRecord): JobRow {
  const { input, output, metricsHistory, ...rest } = job;
  return {
    ...rest,
    inputJson: input ? JSON.stringify(input) : null,
    outputJson: output ? JSON.stringify(output) : null,
    metricsHistoryJson: metricsHistory ? JSON.stringify(metricsHistory) : null,
  };
}

export function fromRow(row: JobRow): JobRecord {
  const { inputJson, outputJson, metricsHistoryJson, ...rest } = row;
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

/** Write the listing copy of a job (insert or replace the whole row). */
export async function mirrorJob(db: Db, job: JobRecord): Promise<void> {
  const row = toRow(job);
  const { id, ...update } = row;
  await db.insert(jobs).values(row).onConflictDoUpdate({ target: jobs.id, set: update });
}

export async function readJobRow(db: Db, id: string): Promise<JobRecord | null> {
  const rows = await db.select().from(jobs).where(eq(jobs.id, id)).limit(1);
  return rows[0] ? fromRow(rows[0]) : null;
}
