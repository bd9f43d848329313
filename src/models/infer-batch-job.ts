/**
 * The `infer_batch` job: async inference over an uploaded file, or batch inference over a stored
 * dataset version. The rows (./inference-input) go through the model version fixed at creation
 * in the Worker — the same path as sync inference, so the same columns — BATCH_CHUNK_ROWS at a
 * time with progress in between; the results are stored (../inference/results). What the input
 * or the model cannot do fails the job at once with its message.
 */
import { DomainError, InvalidInput } from "../core/errors";
import { BATCH_CHUNK_ROWS } from "../core/limits";
import type { Db } from "../db/client";
import { versionOfModel } from "../db/model-versions";
import type { ParquetColumnType, ResultTable } from "../inference/output";
import { writeResults } from "../inference/results";
import { loadArtifact, runModel } from "../inference/run-model";
import { JobInputError } from "../jobs/errors";
import type { JobRecord } from "../jobs/types";
import type { JobControl, JobOutcome } from "../jobs/work";
import { frameRows } from "../ml/frame";
import type { InferBatchInput } from "./infer-async";
import { inferenceInput } from "./inference-input";

export async function runInferBatchJob(deps: { db: Db; bucket: R2Bucket }, job: JobRecord, control: JobControl): Promise<JobOutcome> {
  const started = Date.now();
  const input = job.input as InferBatchInput;
  try {
    const version = job.modelId ? await versionOfModel(deps.db, job.modelId, { id: input.model_version_id }) : undefined;
    if (!version || version.status !== "ready")
      throw new JobInputError("The model version this job was created for is gone or no longer ready; start a new inference.");
    const [frame, artifact] = await Promise.all([inferenceInput(deps.bucket, job), loadArtifact(deps.bucket, version)]);
    if (!frame)
      throw new JobInputError(
        input.source === "dataset" ? "The dataset version's data is gone." : "The uploaded file of this job is gone; upload it again.",
      );
    await control.report({ progress: 10 });
    const table: ResultTable = {};
    let columnTypes: Record<string, ParquetColumnType> = {};
    for (let start = 0; start < frame.rowCount || start === 0; start += BATCH_CHUNK_ROWS) {
      const end = Math.min(frame.rowCount, start + BATCH_CHUNK_ROWS);
      const part = await runModel(deps.bucket, version, artifact, frameRows(frame, start, end));
      for (const [name, values] of Object.entries(part.table)) {
        const column = table[name] ?? (table[name] = []);
        for (const v of values) column.push(v);
      }
      columnTypes = part.columnTypes;
      await control.report({ progress: 10 + Math.round((70 * end) / Math.max(1, frame.rowCount)), rows_processed: end });
    }
    const stored = await writeResults(deps.bucket, job.orgId, job.id, table, columnTypes);
    const seconds = (Date.now() - started) / 1000;
    // credits are counted by the job's object from the rows and the running time
    return { output: { ...stored, output_type: input.output_type, model_version_id: version.id, seconds }, rowsProcessed: stored.rows };
  } catch (e) {
    // Request-time errors of the shared inference path (a file too large, unreadable) are final.
    if (e instanceof InvalidInput) throw new JobInputError(e.issues.map((i) => i.message).join("; "));
    if (e instanceof DomainError) throw new JobInputError(e.message);
    throw e;
  }
}
