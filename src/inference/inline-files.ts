/**
 * A small sync inference's files (its input file and its results) kept in D1, in one row beside
 * the job record and written in the same batch, instead of as R2 objects. A one-row prediction
 * then costs one write after its answer instead of three; on the local service the two R2 writes
 * were what pushed the next warm call past an authenticated GET (bench/service/warm-path.ts).
 * Larger calls keep their files in R2 (results.ts): the row stays small, whatever a job page lists.
 *
 * The job names the row that holds its files: `input.inline_job_id` (an explanation job copies
 * its parent's input, so it names the parent) and `output.inline: true` for the results.
 */
import { eq, inArray } from "drizzle-orm";
import { INLINE_JOB_FILES_MAX_BYTES } from "../core/limits";
import { type Db, inChunks } from "../db/client";
import { inlineJobFiles } from "../db/schema";
import type { ResultTable } from "../model-types/contract";

export interface InlineFiles {
  input: Uint8Array;
  results: ResultTable;
}

/** The row to write with the job, or null when the files are too big to keep inline. */
export function inlineFilesRow(orgId: string, jobId: string, input: Uint8Array, results: ResultTable) {
  if (input.byteLength > INLINE_JOB_FILES_MAX_BYTES) return null;
  const resultsJson = JSON.stringify(results);
  const inputBase64 = toBase64(input);
  if (inputBase64.length + resultsJson.length > INLINE_JOB_FILES_MAX_BYTES) return null;
  return { jobId, orgId, inputBase64, resultsJson };
}

export type InlineFilesRow = NonNullable<ReturnType<typeof inlineFilesRow>>;

export const insertInlineFiles = (db: Db, row: InlineFilesRow) => db.insert(inlineJobFiles).values(row).onConflictDoNothing();

/** The files of job `jobId` (the org must own them), or null when they are gone. */
export async function readInlineFiles(db: Db, orgId: string, jobId: string): Promise<InlineFiles | null> {
  const rows = await db.select().from(inlineJobFiles).where(eq(inlineJobFiles.jobId, jobId)).limit(1);
  const row = rows[0];
  if (!row || row.orgId !== orgId) return null;
  return { input: fromBase64(row.inputBase64), results: JSON.parse(row.resultsJson) as ResultTable };
}

export async function deleteInlineFiles(db: Db, jobIds: string[]): Promise<void> {
  await inChunks(jobIds, async (ids) => {
    await db.delete(inlineJobFiles).where(inArray(inlineJobFiles.jobId, ids));
    return [];
  });
}

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x2000) s += String.fromCharCode(...bytes.subarray(i, i + 0x2000));
  return btoa(s);
}

function fromBase64(text: string): Uint8Array {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
