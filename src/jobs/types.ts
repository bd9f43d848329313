import { z } from "zod";
import { MAX_POINTS_PER_REPORT } from "../core/limits";

export const JOB_TYPES = ["dataset_ingest", "train", "infer_sync", "infer_batch", "infer_explain"] as const;
export type JobType = (typeof JOB_TYPES)[number];

/** The jobs of an inference (sync or async/batch): they have results, input files kept for a time, rows to explain. */
export const INFERENCE_JOB_TYPES = ["infer_sync", "infer_batch"] as const satisfies readonly JobType[];
const INFERENCE: ReadonlySet<string> = new Set(INFERENCE_JOB_TYPES);
export const isInferenceJob = (type: string) => INFERENCE.has(type);

/**
 * The jobs whose work may run on several trainer instances through the trial routes (a training's
 * model search, a batch inference's parts), and store files under the job's search prefix.
 */
export const usesTrials = (type: string) => type === "train" || type === "infer_batch";

export const JOB_STATUSES = [
  "initializing",
  "pending",
  "queued",
  "running",
  "succeeded",
  "failed",
  "canceled",
  "rejected",
  "waiting_for_upload",
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const TERMINAL_STATUSES: JobStatus[] = ["succeeded", "failed", "canceled", "rejected"];
const TERMINAL: ReadonlySet<JobStatus> = new Set(TERMINAL_STATUSES);
export const isTerminal = (s: JobStatus) => TERMINAL.has(s);

const metricPointSchema = z.object({
  step: z.number().int(),
  train_loss: z.number().nullable(),
  val_loss: z.number().nullable(),
});
export type MetricPoint = z.infer<typeof metricPointSchema>;

/**
 * Free-form job input and output: JSON objects (they cross RPC and are stored as JSON). Typed
 * loosely on purpose: a recursive JSON type makes the RPC result types too deep to check.
 */
// biome-ignore lint/suspicious/noExplicitAny: a recursive JSON type makes RPC result types too deep to check
export type JsonObject = Record<string, any>;

/** Everything known about a job. The job's Durable Object owns it; D1 holds a copy for lists. */
export interface JobRecord {
  id: string;
  orgId: string;
  type: JobType;
  status: JobStatus;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  principalType: string | null;
  userId: string | null;
  apiKeyId: string | null;
  actorName: string | null;
  modelType: string | null;
  modelId: string | null;
  modelVersionId: string | null;
  datasetId: string | null;
  datasetVersionId: string | null;
  datasetName: string | null;
  inputFilename: string | null;
  parentJobId: string | null;
  retryOfJobId: string | null;
  input: JsonObject | null;
  output: JsonObject | null;
  errorMessage: string | null;
  serviceRuntimeVersion: string | null;
  creditsConsumed: number | null;
  progress: number | null;
  currentStep: number | null;
  totalSteps: number | null;
  currentPhase: "ssl" | "finetune" | null;
  metricsHistory: MetricPoint[] | null;
}

/** What the worker doing a job may report while it runs. */
export const progressReportSchema = z.object({
  progress: z.number().min(0).max(100).optional(),
  current_step: z.number().int().min(0).optional(),
  total_steps: z.number().int().min(0).optional(),
  current_phase: z.enum(["ssl", "finetune"]).nullable().optional(),
  metric: metricPointSchema.optional(),
  /** Several points at once (oldest first): workers batch them between reports. */
  metrics: z.array(metricPointSchema).max(MAX_POINTS_PER_REPORT).optional(),
});
export type ProgressReport = z.infer<typeof progressReportSchema>;
