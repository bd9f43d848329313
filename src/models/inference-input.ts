/**
 * The input rows of an inference job, read back from R2: the uploaded file (sync and async
 * inference keep it under the job, `input.input_key`) or the dataset version's frame (batch
 * inference, `input.frame_key`). Explanations and the batch job itself read them here.
 */

import { rowIds } from "../inference/run-model";
import { decodeFrame } from "../ingest/columnar";
import type { JobRecord } from "../jobs/types";
import type { Frame } from "../ml/frame";
import { readInput } from "./infer";

/** Null when the rows are no longer stored. */
export async function inferenceInput(bucket: R2Bucket, job: JobRecord): Promise<Frame | null> {
  const input = job.input ?? {};
  if (input.source === "dataset" && typeof input.frame_key === "string") {
    const obj = await bucket.get(input.frame_key);
    return obj ? decodeFrame(new Uint8Array(await obj.arrayBuffer())) : null;
  }
  if (typeof input.input_key !== "string") return null;
  const obj = await bucket.get(input.input_key);
  if (!obj) return null;
  return readInput(new Uint8Array(await obj.arrayBuffer()), input.format === "parquet" ? "parquet" : "csv", job.inputFilename ?? "file");
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
