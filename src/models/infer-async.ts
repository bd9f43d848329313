/**
 * POST /models/{id}/infer-async: the file goes to R2 and an `infer_batch` job takes it from the
 * queue (./infer-batch-job); POST /models/{id}/infer-batch: the same job over a stored dataset
 * version. The results are read with GET /jobs/{id}/results. The model version
 * is fixed when the job is created (the requested one, else the latest ready one), so a version
 * trained meanwhile does not change what the job answers, also on retry.
 */
import { eq } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { DIRECT_UPLOAD_MAX_BYTES } from "../core/limits";
import { uploadedFileFormat } from "../datasets/upload-file";
import { datasets } from "../db/schema";
import type { OutputFormat } from "../inference/output";
import { createJob, getJobDetail, type JobDeps, type JobWithRefs } from "../jobs/service";
import { inferenceInputKey } from "../storage/keys";
import { chooseVersion, inferenceFileTooLarge } from "./infer";
import { findModelWithVersions } from "./records";
import { resolveTrainingData, type TrainingData } from "./train";

export interface AsyncInferRequest {
  file: File;
  output_type: OutputFormat;
  model_version_id?: string;
}

/** What an infer_batch job's input holds (the job handler reads it back): an uploaded file or a stored dataset version. */
export type InferBatchInput =
  | { source: "file"; input_key: string; format: "csv" | "parquet"; output_type: OutputFormat; model_version_id: string }
  | { source: "dataset"; frame_key: string; output_type: OutputFormat; model_version_id: string };

export async function startAsyncInference(
  deps: JobDeps & { bucket: R2Bucket },
  principal: Principal,
  modelId: string,
  req: AsyncInferRequest,
): Promise<JobWithRefs> {
  if (req.file.size > DIRECT_UPLOAD_MAX_BYTES) throw inferenceFileTooLarge();
  const { model, versions } = await findModelWithVersions(deps.db, principal, modelId);
  const version = chooseVersion(versions, req.model_version_id);
  const format = await uploadedFileFormat(req.file);
  const jobId = crypto.randomUUID();
  const key = inferenceInputKey(principal.orgId, jobId, req.file.name);
  await deps.bucket.put(key, req.file.stream(), { httpMetadata: { contentType: req.file.type || "application/octet-stream" } });
  const input: InferBatchInput = { source: "file", input_key: key, format, output_type: req.output_type, model_version_id: version.id };
  await createJob(deps, principal, {
    id: jobId,
    type: "infer_batch",
    modelType: model.modelType,
    modelId: model.id,
    modelVersionId: version.id,
    inputFilename: req.file.name,
    input,
  });
  return getJobDetail(deps, principal, jobId);
}

export interface BatchInferRequest extends TrainingData {
  output_type: OutputFormat;
  model_version_id?: string;
}

export async function startBatchInference(deps: JobDeps, principal: Principal, modelId: string, req: BatchInferRequest): Promise<JobWithRefs> {
  const { model, versions } = await findModelWithVersions(deps.db, principal, modelId);
  const version = chooseVersion(versions, req.model_version_id);
  const data = await resolveTrainingData(deps.db, principal, req);
  const input: InferBatchInput = { source: "dataset", frame_key: data.frameKey!, output_type: req.output_type, model_version_id: version.id };
  const [dataset] = await deps.db.select({ name: datasets.name }).from(datasets).where(eq(datasets.id, data.datasetId)).limit(1);
  const job = await createJob(deps, principal, {
    type: "infer_batch",
    modelType: model.modelType,
    modelId: model.id,
    modelVersionId: version.id,
    datasetId: data.datasetId,
    datasetVersionId: data.id,
    datasetName: dataset?.name ?? null,
    input,
  });
  return getJobDetail(deps, principal, job.id);
}
