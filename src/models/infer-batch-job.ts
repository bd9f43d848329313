/**
 * The `infer_batch` job: async inference over an uploaded file, or batch inference over a stored
 * dataset version, with the model version fixed at creation. A stored dataset may hold millions
 * of rows, so with a trainer (the container in production, a local process under `npm start`) it
 * is handed over and the trainer runs the same runner (../inference/batch-run) through the
 * internal control routes; uploaded files (≤ 30 MB) and deployments without a trainer run here.
 * What the input or the model cannot do fails the job at once with its message.
 */
import { DomainError, InvalidInput } from "../core/errors";
import { FrameTooLargeForWorker } from "../datasets/rows";
import type { Db } from "../db/client";
import { versionOfModel } from "../db/model-versions";
import { runBatchInference } from "../inference/batch-run";
import { r2ResultSink } from "../inference/results";
import { workerModelRuntime } from "../inference/worker-runtime";
import { JobInputError } from "../jobs/errors";
import type { JobRecord } from "../jobs/types";
import type { JobControl, JobOutcome } from "../jobs/work";
import type { InferBatchInput } from "./infer-async";
import { inferenceInput } from "./inference-input";

export interface InferBatchDeps {
  db: Db;
  bucket: R2Bucket;
  /** Hands the job to the trainer (absent without one: everything runs here). */
  handToTrainer?: (assignment: { job_id: string; attempt: number }) => Promise<void>;
}

/** The job's model version, or a final error when it is gone. */
export async function batchVersion(db: Db, job: JobRecord) {
  const input = job.input as InferBatchInput;
  const version = job.modelId ? await versionOfModel(db, job.modelId, { id: input.model_version_id }) : undefined;
  if (version?.status !== "ready" || !version.artifactKey) {
    throw new JobInputError("The model version this job was created for is gone or no longer ready; start a new inference.");
  }
  return version;
}

/** Request-time errors of the shared inference path (a file too large, unreadable) are final. */
function finalInputError(e: unknown): unknown {
  if (e instanceof InvalidInput) return new JobInputError(e.issues.map((i) => i.message).join("; "));
  if (e instanceof DomainError) return new JobInputError(e.message);
  return e;
}

export async function runInferBatchJob(deps: InferBatchDeps, job: JobRecord, control: JobControl): Promise<JobOutcome> {
  const started = Date.now();
  const input = job.input as InferBatchInput;
  try {
    const version = await batchVersion(deps.db, job);
    if (input.source === "dataset" && deps.handToTrainer) {
      await deps.handToTrainer({ job_id: job.id, attempt: control.attempt });
      return { settled: true };
    }
    const frame = await inferenceInput(deps, job).catch((e) => {
      // here, in a deployment without a trainer, "use a batch inference job" is no advice
      if (e instanceof FrameTooLargeForWorker)
        throw new JobInputError(`${e.shape}; batch inference over a table this large needs the trainer, which this deployment does not have.`);
      throw e;
    });
    if (!frame)
      throw new JobInputError(
        input.source === "dataset" ? "The dataset version's data is gone." : "The uploaded file of this job is gone; upload it again.",
      );
    const stored = await runBatchInference(
      {
        runtime: workerModelRuntime(deps.bucket),
        sink: r2ResultSink(deps.bucket, job.orgId, job.id),
        report: (progress, rows) => control.report({ progress, rows_processed: rows }),
      },
      version,
      frame,
    );
    const seconds = (Date.now() - started) / 1000;
    // credits are counted by the job's object from the rows and the running time
    return { output: { ...stored, output_type: input.output_type, model_version_id: version.id, seconds }, rowsProcessed: stored.rows };
  } catch (e) {
    throw finalInputError(e);
  }
}
