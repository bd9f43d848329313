/**
 * The input rows of an inference job, read back from R2: the uploaded file (sync and async
 * inference keep it under the job, `input.input_key`; a small sync one in D1, `input.inline_job_id`) or the dataset version's frame (batch
 * inference, `input.frame_key`). Explanations and the batch job itself read them here.
 */

import { readFrameInWorker } from "../datasets/rows";
import type { Db } from "../db/client";
import { versionById } from "../db/dataset-versions";
import { readInlineFiles } from "../inference/inline-files";
import { rowIds } from "../inference/run-model";
import type { JobRecord, JsonObject } from "../jobs/types";
import type { Frame } from "../ml/frame";
import { readInput } from "./infer";

/** Null when the rows are no longer stored. */
export async function inferenceInput(deps: { db: Db; bucket: R2Bucket }, job: JobRecord): Promise<Frame | null> {
  const input = job.input ?? {};
  if (input.source === "dataset" && typeof input.frame_key === "string") {
    const version = job.datasetVersionId ? await versionById(deps.db, job.datasetVersionId) : undefined;
    // without its version row, the stored object's size is still checked
    return readFrameInWorker(deps.bucket, input.frame_key, version);
  }
  const bytes = await inputFile(deps, job.orgId, input);
  if (!bytes) return null;
  return readInput(bytes, input.format === "parquet" ? "parquet" : "csv", job.inputFilename ?? "file");
}

/** The uploaded file: in R2 (`input_key`), or in D1 with the sync job that answered it (`inline_job_id`). */
async function inputFile(deps: { db: Db; bucket: R2Bucket }, orgId: string, input: JsonObject): Promise<Uint8Array | null> {
  if (typeof input.inline_job_id === "string") return (await readInlineFiles(deps.db, orgId, input.inline_job_id))?.input ?? null;
  if (typeof input.input_key !== "string") return null;
  const obj = await deps.bucket.get(input.input_key);
  return obj ? new Uint8Array(await obj.arrayBuffer()) : null;
}

/** Frame row of each id (ids compared as text: 7 and "7" name the same row). */
export function rowsForIds(frame: Frame, ids: (string | number)[]): { rows: number[]; missing: (string | number)[] } {
  const index = new Map<string, number>();
  rowIds(frame).forEach((v, i) => {
    const k = String(v);
    if (!index.has(k)) index.set(k, i);
  });
  const rows: number[] = [];
  const missing: (string | number)[] = [];
  for (const id of ids) {
    const r = index.get(String(id));
    if (r === undefined) missing.push(id);
    else rows.push(r);
  }
  return { rows, missing };
}
