/** Jobs as the API shows them (schemas in ../schemas/jobs). */
import type { z } from "@hono/zod-openapi";
import { publicJobId } from "../../jobs/ids";
import type { JobWithRefs, RefLookup } from "../../jobs/service";
import type { JobRecord } from "../../jobs/types";
import type { ModelType } from "../../model-types/registry";
import type { JobDetail } from "../schemas/jobs";

interface DatasetRef {
  id: string;
  version_id: string;
  version_number: number;
  archived: boolean;
}
interface ModelRef {
  id: string;
  version_id: string;
  version_number: number;
}

function datasetRef(job: JobRecord, refs: RefLookup): DatasetRef | null {
  const v = job.datasetVersionId ? refs.datasetVersions.get(job.datasetVersionId) : undefined;
  if (!v || !job.datasetVersionId) return null;
  return { id: v.datasetId, version_id: job.datasetVersionId, version_number: v.version, archived: v.archived };
}

function modelRef(job: JobRecord, refs: RefLookup): ModelRef | null {
  const v = job.modelVersionId ? refs.modelVersions.get(job.modelVersionId) : undefined;
  if (!v || !job.modelVersionId) return null;
  return { id: v.modelId, version_id: job.modelVersionId, version_number: v.version };
}

function resources(job: JobRecord, refs: RefLookup): z.input<typeof JobDetail>["resources"] {
  switch (job.type) {
    case "dataset_ingest":
      return { type: "dataset_ingest", dataset: datasetRef(job, refs) };
    case "train":
      return { type: "train", model: modelRef(job, refs), dataset: datasetRef(job, refs) };
    case "infer_sync":
      return { type: "infer_sync", model: modelRef(job, refs) };
    case "infer_batch":
      return { type: "infer_batch", model: modelRef(job, refs), dataset: datasetRef(job, refs) };
    case "infer_explain":
      return { type: "model_explain", model: modelRef(job, refs), dataset: datasetRef(job, refs) };
  }
}

/** The job detail of the interface. */
export function presentJob({ job, refs }: JobWithRefs): z.input<typeof JobDetail> {
  const isTrain = job.type === "train";
  // An explanation job stores its rows in its output; the interface shows them as `explanations`.
  const { explanations = null, ...output } = job.type === "infer_explain" && job.output ? job.output : { ...(job.output ?? {}) };
  return {
    id: publicJobId(job.id),
    type: job.type,
    status: job.status,
    created_at: job.createdAt,
    started_at: job.startedAt,
    finished_at: job.finishedAt,
    created_by: job.principalType ? { principal_type: job.principalType, user_id: job.userId, api_key_id: job.apiKeyId } : null,
    actor_name: job.actorName,
    model_type: job.modelType as ModelType | null,
    model_id: job.modelId,
    dataset_id: job.datasetId,
    dataset_name: job.datasetName,
    input_filename: job.inputFilename,
    parent_job_id: job.parentJobId ? publicJobId(job.parentJobId) : null,
    input: job.input,
    output: job.output === null ? null : output,
    resources: resources(job, refs),
    explanations: job.status === "succeeded" ? explanations : null,
    error_message: job.errorMessage,
    service_runtime_version: job.serviceRuntimeVersion,
    credits_consumed: job.creditsConsumed,
    progress: job.progress,
    current_step: isTrain ? job.currentStep : null,
    total_steps: isTrain ? job.totalSteps : null,
    current_phase: isTrain ? job.currentPhase : null,
    metrics_history: isTrain ? job.metricsHistory : null,
  };
}
