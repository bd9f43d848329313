/**
 * Synchronous inference: an uploaded table in, predictions out, inside the Worker. The file is
 * read as raw text (the model's featurizer interprets each column by its own training-time rules,
 * so extra columns are ignored and missing ones or unseen categories count as missing); the ONNX
 * graph runs in onnxruntime-web with one session per model version cached in the isolate
 * (../inference/run-model), for every model type.
 */
import type { Principal } from "../auth/principal";
import { afterResponse } from "../core/after-response";
import { Conflict, InvalidInput, TooLarge } from "../core/errors";
import { DIRECT_UPLOAD_MAX_BYTES, INFER_MAX_CELLS } from "../core/limits";
import { uploadedFileFormat } from "../datasets/upload-file";
import type { Db } from "../db/client";
import { type InlineFilesRow, inlineFilesRow, insertInlineFiles } from "../inference/inline-files";
import { type EncodedOutput, encodeTable, type OutputFormat } from "../inference/output";
import { type StoredResults, type StoreOptions, summarizeResults, writeResults } from "../inference/results";
import { loadArtifact, prepareSession, runModel } from "../inference/run-model";
import { workerModelRuntime } from "../inference/worker-runtime";
import { readCsv } from "../ingest/csv";
import { IngestError } from "../ingest/errors";
import { readParquet } from "../ingest/parquet";
import { portableCompressors } from "../ingest/portable-compressors";
import { creditsFor } from "../jobs/credits";
import { recordFinishedJob } from "../jobs/finished-jobs";
import { writtenBehindJobId } from "../jobs/ids";
import { finishedJobRecord, type JobDeps } from "../jobs/service";
import type { Frame } from "../ml/frame";
import type { ResultTable } from "../model-types/contract";
import { inferenceInputKey } from "../storage/keys";
import { cachedModelWithVersions } from "./model-cache";
import { latestReady, type ModelRow, type ModelVersionRow } from "./records";

/** An inference file over the limit. (Larger tables will go through batch inference.) */
export const inferenceFileTooLarge = () =>
  new TooLarge(
    `File exceeds the ${DIRECT_UPLOAD_MAX_BYTES / 1024 / 1024} MB limit of an inference upload; split the table into smaller files.`,
    DIRECT_UPLOAD_MAX_BYTES,
  );

export interface InferRequest {
  file: File;
  output_type: OutputFormat;
  /** Default: the latest ready version. */
  model_version_id?: string;
}

export interface InferDeps extends JobDeps {
  bucket: R2Bucket;
  /** Reads that may come from the nearest D1 read replica (the model lookup of a cache miss). */
  replica?: () => Db;
  /** Work that may finish after the response (recording the job): the request's waitUntil. */
  defer: (p: Promise<unknown>) => void;
}

export interface InferResult {
  jobId: string;
  latencyMs: number;
  model: ModelRow;
  version: ModelVersionRow;
  table: ResultTable;
  encoded: EncodedOutput | null;
}

export async function inferSync(deps: InferDeps, principal: Principal, modelId: string, req: InferRequest, startedMs: number): Promise<InferResult> {
  const { file } = req;
  if (file.size > DIRECT_UPLOAD_MAX_BYTES) throw inferenceFileTooLarge();
  const { model, versions } = await cachedModelWithVersions(deps.db, principal, modelId, req.model_version_id, deps.replica, deps.defer);
  const version = chooseVersion(versions, req.model_version_id);
  const format = await uploadedFileFormat(file);
  const bytes = new Uint8Array(await file.arrayBuffer());
  const runtime = workerModelRuntime(deps.bucket);
  // The model's graph is fetched and its session built while the file is read (a cold version's
  // three R2 reads and the session creation overlap instead of following one another).
  // All three are awaited even when the file fails to read: the session and artifact loads are
  // cached per isolate, and I/O a request leaves running is canceled when it ends, so a cached load
  // abandoned by a bad file would never settle and every later request would wait on it forever.
  // And they are handed to waitUntil: a client that hangs up mid-request must not cancel them either.
  const loads = [loadArtifact(runtime, version), prepareSession(runtime, version)] as const;
  deps.defer(Promise.allSettled(loads));
  const [frame, artifact] = await settledAll([readInput(bytes, format, file.name), ...loads] as const);
  const { table, columnTypes } = await runModel(runtime, version, artifact, frame);
  const encoded = req.output_type === "json" ? null : encodeTable(table, req.output_type, { columnTypes });
  const latencyMs = Math.max(0, Math.round(Date.now() - startedMs));
  // an id that tells a read arriving before the record (written after the answer) to wait for it
  const jobId = writtenBehindJobId();
  const common = { jobId, model, version, filename: file.name, rows: frame.rowCount, latencyMs, outputType: req.output_type, format };
  // After the response: the input rows and the results are kept (the job's rows can be explained
  // and its results read again, as for async jobs), in D1 with the job when they are small, else
  // in R2 before the job is recorded with their summary.
  const inline = inlineFilesRow(principal.orgId, jobId, bytes, table);
  if (inline) {
    const stored = summarizeResults(table, columnTypes);
    const write = recordJob(deps, principal, { ...common, stored, inline });
    if (write) deps.defer(write);
  } else {
    const inputKey = inferenceInputKey(principal.orgId, jobId, file.name);
    deps.defer(
      afterResponse()
        .then(() =>
          Promise.all([
            deps.bucket.put(inputKey, bytes),
            writeResults(deps.bucket, principal.orgId, jobId, table, columnTypes, syncForms(req.output_type, encoded)),
          ]),
        )
        .then(([, stored]) => stored)
        .catch((e) => {
          console.error(`keeping the input and results of inference job ${jobId} failed`, e);
          return null;
        })
        .then((stored) => recordJob(deps, principal, { ...common, stored, inputKey }) ?? undefined),
    );
  }
  return { jobId, latencyMs, model, version, table, encoded };
}

/** Promise.all that waits for every promise to settle before it rejects with the first failure. */
async function settledAll<T extends readonly unknown[]>(promises: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r) => r.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/**
 * What a sync job keeps besides its JSON pages: the body it answered with when that was csv or
 * parquet (already encoded, so free); the other forms are encoded from the pages if ever asked
 * for (GET /jobs/{id}/results), which keeps the work after each answer small.
 */
function syncForms(outputType: OutputFormat, encoded: EncodedOutput | null): StoreOptions {
  if (!encoded || outputType === "json") return { formats: [] };
  return { formats: [outputType], encoded: { format: outputType, output: encoded } };
}

/** The requested version (it must be ready) or the latest ready one. */
export function chooseVersion(versions: ModelVersionRow[], versionId: string | undefined): ModelVersionRow {
  if (versionId) {
    const v = versions.find((x) => x.id === versionId);
    if (!v) throw InvalidInput.field(["model_version_id"], "This model has no version with that id", versionId);
    if (v.status !== "ready") throw new Conflict(`Model version ${v.version} is ${v.status}; only ready versions can predict.`);
    return v;
  }
  const ready = latestReady(versions);
  if (!ready) {
    const latest = versions[0];
    throw new Conflict(
      `The model has no ready version yet${latest ? ` (version ${latest.version} is ${latest.status})` : ""}; poll its training job.`,
    );
  }
  return ready;
}

export async function readInput(bytes: Uint8Array, format: "csv" | "parquet", filename: string): Promise<Frame> {
  const options = { rawText: true, maxCells: INFER_MAX_CELLS };
  try {
    const r = format === "parquet" ? await readParquet(bytes, { ...options, compressors: portableCompressors }) : await readCsv(bytes, options);
    return r.frame;
  } catch (e) {
    if (e instanceof IngestError && e.code === "too_large") {
      throw new TooLarge(
        `'${filename}' has more than ${INFER_MAX_CELLS.toLocaleString("en-US")} cells (rows × columns), the most one synchronous inference call reads; split it into smaller files.`,
        INFER_MAX_CELLS,
      );
    }
    if (e instanceof IngestError) throw InvalidInput.field(["file"], `Could not read '${filename}': ${e.message}`, filename);
    throw e;
  }
}

/**
 * The infer_sync job, left to be written after the response (in a batch with other calls' jobs,
 * ../jobs/finished-jobs): the write to hand to waitUntil, or null when an earlier call's carries it.
 */
function recordJob(
  deps: InferDeps,
  principal: Principal,
  r: {
    jobId: string;
    model: ModelRow;
    version: ModelVersionRow;
    filename: string;
    rows: number;
    latencyMs: number;
    outputType: string;
    format: string;
    stored: StoredResults | null;
    /** Where the input file is: an R2 key, or the inline row written with the job. */
    inputKey?: string;
    inline?: InlineFilesRow;
  },
): Promise<void> | null {
  const now = new Date();
  const where = r.inline ? { inline_job_id: r.jobId } : { input_key: r.inputKey };
  const job = finishedJobRecord(principal, {
    status: "succeeded",
    id: r.jobId,
    type: "infer_sync",
    modelType: r.model.modelType,
    modelId: r.model.id,
    modelVersionId: r.version.id,
    inputFilename: r.filename,
    startedAt: new Date(now.getTime() - r.latencyMs).toISOString(),
    finishedAt: now.toISOString(),
    progress: 100,
    creditsConsumed: creditsFor(r.rows, r.latencyMs / 1000),
    input: { source: "file", ...where, format: r.format, output_type: r.outputType, model_version_id: r.version.id },
    output: { ...(r.stored ?? {}), ...(r.inline ? { inline: true } : {}), output_type: r.outputType, rows: r.rows, latency_ms: r.latencyMs },
  });
  const inline = r.inline;
  return recordFinishedJob(deps.db, { job, alongside: inline ? (db) => [insertInlineFiles(db, inline)] : undefined });
}
