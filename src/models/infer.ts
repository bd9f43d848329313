/**
 * Synchronous inference: an uploaded table in, predictions out, inside the Worker. The file is
 * read as raw text (the model's featurizer interprets each column by its own training-time rules,
 * so extra columns are ignored and missing ones or unseen categories count as missing); the ONNX
 * graph runs in onnxruntime-web with one session per model version cached in the isolate.
 */
import type { Principal } from "../auth/principal";
import { Conflict, InvalidInput, TooLarge } from "../core/errors";
import { DIRECT_UPLOAD_MAX_BYTES, INFER_MAX_CELLS, MAX_CACHED_ARTIFACTS } from "../core/limits";
import { uploadedFileFormat } from "../datasets/upload-file";
import { type Cell, type EncodedOutput, encodeTable, type OutputFormat, type ResultTable } from "../inference/output";
import { runGbdtOnnx } from "../inference/run-onnx";
import { withSession } from "../inference/session-cache";
import { readCsv } from "../ingest/csv";
import { IngestError } from "../ingest/errors";
import { readParquet } from "../ingest/parquet";
import { portableCompressors } from "../ingest/portable-compressors";
import { creditsFor } from "../jobs/credits";
import { type JobDeps, recordFinishedJob } from "../jobs/service";
import { applyFeaturizer } from "../ml/featurize";
import { cellValue, type Frame } from "../ml/frame";
import { ARTIFACT_FILES } from "../storage/keys";
import { type PredictionArtifact, parsePredictionArtifact } from "./prediction-artifact";
import { findModelWithVersions, latestReady, type ModelRow, type ModelVersionRow } from "./records";

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
  const { model, versions } = await findModelWithVersions(deps.db, principal, modelId);
  const version = chooseVersion(versions, req.model_version_id);
  const format = await uploadedFileFormat(file);
  const bytes = new Uint8Array(await file.arrayBuffer());
  const [frame, artifact] = await Promise.all([readInput(bytes, format, file.name), loadArtifact(deps.bucket, version)]);
  const table = await predict(deps.bucket, version, artifact, frame);
  const encoded = req.output_type === "json" ? null : encodeTable(table, req.output_type, { columnTypes: columnTypes(artifact, table) });
  const latencyMs = Math.max(0, Math.round(Date.now() - startedMs));
  const jobId = crypto.randomUUID();
  deps.defer(
    recordJob(deps, principal, { jobId, model, version, filename: file.name, rows: frame.rowCount, latencyMs, outputType: req.output_type, format }),
  );
  return { jobId, latencyMs, model, version, table, encoded };
}

/** The requested version (it must be ready) or the latest ready one. */
function chooseVersion(versions: ModelVersionRow[], versionId: string | undefined): ModelVersionRow {
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

async function readInput(bytes: Uint8Array, format: "csv" | "parquet", filename: string): Promise<Frame> {
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

/** Featurizers are small and immutable per version: parsed once per isolate. */
const artifacts = new Map<string, Promise<PredictionArtifact>>();

function loadArtifact(bucket: R2Bucket, v: ModelVersionRow): Promise<PredictionArtifact> {
  let p = artifacts.get(v.id);
  if (!p) {
    p = (async () => {
      const obj = await bucket.get(v.artifactKey + ARTIFACT_FILES.featurizer);
      if (!obj) throw new Conflict(`The artifacts of model version ${v.version} are missing; retrain the model.`);
      return parsePredictionArtifact(await obj.text());
    })();
    p.catch(() => artifacts.delete(v.id));
    if (artifacts.size >= MAX_CACHED_ARTIFACTS) artifacts.delete(artifacts.keys().next().value!);
    artifacts.set(v.id, p);
  }
  return p;
}

async function predict(bucket: R2Bucket, v: ModelVersionRow, a: PredictionArtifact, frame: Frame): Promise<ResultTable> {
  const m = applyFeaturizer(a.featurizer, frame);
  const loadOnnx = async () => {
    const obj = await bucket.get(v.artifactKey + ARTIFACT_FILES.onnx);
    if (!obj) throw new Conflict(`The artifacts of model version ${v.version} are missing; retrain the model.`);
    return new Uint8Array(await obj.arrayBuffer());
  };
  const out = await withSession(v.id, loadOnnx, (s) => runGbdtOnnx(s, m.data, m.numRows, m.numFeatures));
  const n = frame.rowCount;
  const idCol = frame.columns.find((c) => c.name === "id") ?? frame.columns[0];
  const table: ResultTable = { id: Array.from({ length: n }, (_, i) => cellValue(idCol, i)) };
  if (a.task === "regression" || !out.probabilities || !out.labelIndex) {
    table.prediction = Array.from(out.prediction ?? [], (x) => x);
    // Regression has no class probability; the column is there (null) so every prediction
    // model answers the same columns.
    table.prediction_prob = new Array<Cell>(n).fill(null);
    return table;
  }
  const classes = a.classes ?? [];
  const C = classes.length;
  const probs = out.probabilities;
  table.prediction = Array.from(out.labelIndex, (k) => classes[k] ?? String(k));
  table.prediction_prob = Array.from(out.labelIndex, (k, i) => round(probs[i * C + k]));
  classes.forEach((cls, k) => {
    table[`prob_${cls}`] = Array.from({ length: n }, (_, i) => round(probs[i * C + k]));
  });
  return table;
}

/** Parquet types of the prediction columns, known even when there are no rows to infer them from. */
function columnTypes(a: PredictionArtifact, table: ResultTable): Record<string, "string" | "double"> {
  const types: Record<string, "string" | "double"> = {};
  for (const name of Object.keys(table)) if (name !== "id") types[name] = "double";
  if (a.task === "classification") types.prediction = "string";
  return types;
}

/** float32 probabilities to the precision they carry (7 digits), without float noise in JSON. */
const round = (x: number) => Number(x.toPrecision(7));

async function recordJob(
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
  },
): Promise<void> {
  const now = new Date();
  try {
    await recordFinishedJob(deps.db, principal, {
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
      input: { format: r.format, output_type: r.outputType, model_version_id: r.version.id },
      output: { rows: r.rows, latency_ms: r.latencyMs },
    });
  } catch (e) {
    console.error(`recording inference job ${r.jobId} failed`, e);
  }
}
