/**
 * The control routes' side of an `infer_batch` job run by the trainer: what to apply (the model
 * version fixed at creation, its artifact files), to which rows (the dataset version's frame),
 * and where the results go (the job's result files, layout in ../storage/keys).
 */
import { NotFound } from "../core/errors";
import { OUTPUT_CONTENT_TYPES, type OutputFormat } from "../inference/output";
import type { JobObject } from "../jobs/job-object";
import type { JobRecord, JsonObject } from "../jobs/types";
import type { InferBatchInput } from "../models/infer-async";
import { batchVersion } from "../models/infer-batch-job";
import { ARTIFACT_FILES, resultFileKey, resultPageKey } from "../storage/keys";
import { type ControlDeps, resolveOrFail, stopWork } from "./control-scope";

/** What the trainer is told to do for an infer_batch job. */
export interface BatchTask {
  model_type: string | null;
  output_type: OutputFormat;
  model_version: { id: string; version: number };
}

async function target(deps: ControlDeps, jobObj: JobObject, job: JobRecord, attempt: number) {
  const input = job.input as InferBatchInput;
  const version = await resolveOrFail(jobObj, attempt, () => batchVersion(deps.db, job));
  return { input, version, artifactKey: version.artifactKey as string };
}

export async function batchTask(deps: ControlDeps, jobObj: JobObject, job: JobRecord, attempt: number): Promise<BatchTask> {
  const { input, version } = await target(deps, jobObj, job, attempt);
  return { model_type: job.modelType, output_type: input.output_type, model_version: { id: version.id, version: version.version } };
}

/**
 * The rows: a stored dataset version's frame (uploaded files are run by the queue consumer), as
 * `read` gets it (its body, or its metadata when the trainer is handed a URL to it).
 */
export async function readBatchFrame<T>(
  deps: ControlDeps,
  jobObj: JobObject,
  job: JobRecord,
  attempt: number,
  read: (key: string) => Promise<T | null>,
): Promise<T> {
  const { input } = await target(deps, jobObj, job, attempt);
  if (input.source !== "dataset") throw new NotFound("This job's rows are an uploaded file, read by the Worker.");
  const obj = await read(input.frame_key);
  if (!obj) {
    await jobObj.fail("The dataset version's data is gone.", attempt);
    throw stopWork();
  }
  return obj;
}

const ARTIFACT_NAMES: ReadonlySet<string> = new Set(Object.values(ARTIFACT_FILES));

export async function readBatchArtifact(deps: ControlDeps, jobObj: JobObject, job: JobRecord, attempt: number, file: string) {
  if (!ARTIFACT_NAMES.has(file)) throw new NotFound();
  const { artifactKey } = await target(deps, jobObj, job, attempt);
  const obj = await deps.bucket.get(artifactKey + file);
  if (!obj) throw new NotFound(`The model version has no ${file}.`);
  return obj;
}

/** `page-000012.json`, `results.csv` or `results.parquet` → its key and content type; else null. */
export function resultFile(job: JobRecord, name: string): { key: string; contentType: string } | null {
  const page = /^page-(\d{6,})\.json$/.exec(name);
  if (page) return { key: resultPageKey(job.orgId, job.id, Number(page[1])), contentType: OUTPUT_CONTENT_TYPES.json };
  const whole = /^results\.(csv|parquet)$/.exec(name);
  if (!whole) return null;
  const format = whole[1] as "csv" | "parquet";
  return { key: resultFileKey(job.orgId, job.id, format), contentType: OUTPUT_CONTENT_TYPES[format] };
}

export async function writeBatchResult(deps: ControlDeps, jobObj: JobObject, job: JobRecord, attempt: number, name: string, body: ArrayBuffer) {
  const file = resultFile(job, name);
  if (!file) throw new NotFound();
  await target(deps, jobObj, job, attempt);
  await deps.bucket.put(file.key, body, { httpMetadata: { contentType: file.contentType } });
}

export async function succeedBatch(deps: ControlDeps, jobObj: JobObject, job: JobRecord, attempt: number, output: JsonObject) {
  await target(deps, jobObj, job, attempt);
  const rows = typeof output.rows === "number" ? output.rows : 0;
  if (!(await jobObj.succeed(output, rows, attempt))) throw stopWork();
  return { ok: true };
}
