/**
 * The `infer_batch` job (async inference over an uploaded file): read the file from R2, run the
 * model version fixed at creation in the Worker (the same path as sync inference, so the same
 * columns), store the results (../inference/results), report progress in between. What the input
 * or the model cannot do fails the job at once with its message.
 */
import { DomainError, InvalidInput } from "../core/errors";
import type { Db } from "../db/client";
import { versionOfModel } from "../db/model-versions";
import { writeResults } from "../inference/results";
import { loadArtifact, runModel } from "../inference/run-model";
import { JobInputError } from "../jobs/errors";
import type { JobRecord } from "../jobs/types";
import type { JobControl, JobOutcome } from "../jobs/work";
import { readInput } from "./infer";
import type { InferBatchInput } from "./infer-async";

export async function runInferBatchJob(deps: { db: Db; bucket: R2Bucket }, job: JobRecord, control: JobControl): Promise<JobOutcome> {
  const started = Date.now();
  const input = job.input as InferBatchInput;
  try {
    const version = job.modelId ? await versionOfModel(deps.db, job.modelId, { id: input.model_version_id }) : undefined;
    if (!version || version.status !== "ready")
      throw new JobInputError("The model version this job was created for is gone or no longer ready; start a new inference.");
    const obj = await deps.bucket.get(input.input_key);
    if (!obj) throw new JobInputError("The uploaded file of this job is gone; upload it again.");
    const bytes = new Uint8Array(await obj.arrayBuffer());
    await control.report({ progress: 10 });
    const [frame, artifact] = await Promise.all([readInput(bytes, input.format, job.inputFilename ?? "file"), loadArtifact(deps.bucket, version)]);
    await control.report({ progress: 30 });
    const { table, columnTypes } = await runModel(deps.bucket, version, artifact, frame);
    await control.report({ progress: 70 });
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
