/**
 * One stored model version applied to a table: its featurizer file (parsed once per isolate or
 * process), its ONNX session and for search models its index (./search-index), all through a
 * ModelRuntime (the Worker's or the trainer's); the graph's outputs shaped into the interface's
 * columns.
 */
import { Conflict, TooLarge } from "../core/errors";
import { IsolateCache } from "../core/isolate-cache";
import { INFER_MAX_OUTPUT_VALUES, MAX_CACHED_ARTIFACT_BYTES, SEARCH_MAX_QUERY_ROWS } from "../core/limits";
import { applyFeaturizer } from "../ml/featurize";
import { cellValue, type Frame } from "../ml/frame";
import { ARTIFACT_FILES } from "../storage/keys";
import { type ModelArtifact, parseModelArtifact, type StoredVersion, type UnsupervisedArtifact } from "./artifact";
import type { ModelRuntime } from "./model-runtime";
import type { Cell, ParquetColumnType, ResultTable } from "./output";
import { predictionColumnTypes, predictionTable } from "./prediction-table";
import { type GraphOutput, runGraph } from "./run-graph";
import { runGbdtOnnx } from "./run-onnx";
import { searchNeighbours } from "./search-index";
import { treatedArms, unsupervisedColumnTypes, unsupervisedTable } from "./unsupervised-table";

const missing = (v: StoredVersion) => new Conflict(`The artifacts of model version ${v.version} are missing; retrain the model.`);

/** Featurizer files are immutable per version: parsed once per isolate, counted by their JSON length. */
const artifacts = new IsolateCache<ModelArtifact>({ maxBytes: MAX_CACHED_ARTIFACT_BYTES });

export function loadArtifact(rt: ModelRuntime, v: StoredVersion): Promise<ModelArtifact> {
  return artifacts.get(v.id, async () => {
    const bytes = await rt.readFile(v, ARTIFACT_FILES.featurizer);
    if (!bytes) throw missing(v);
    return { value: parseModelArtifact(new TextDecoder().decode(bytes)), bytes: bytes.byteLength };
  });
}

/** The model's answer for `frame`: the table and the Parquet type of each column. */
export async function runModel(
  rt: ModelRuntime,
  v: StoredVersion,
  a: ModelArtifact,
  frame: Frame,
): Promise<{ table: ResultTable; columnTypes: Record<string, ParquetColumnType> }> {
  if (a.model_type === "search" && frame.rowCount > SEARCH_MAX_QUERY_ROWS) {
    throw new TooLarge(
      `A search model answers at most ${SEARCH_MAX_QUERY_ROWS.toLocaleString("en-US")} query rows per call; this file has ${frame.rowCount.toLocaleString("en-US")}. Split it into smaller files.`,
      SEARCH_MAX_QUERY_ROWS,
    );
  }
  const width = valuesPerRow(a);
  if (frame.rowCount * width > INFER_MAX_OUTPUT_VALUES) {
    throw new TooLarge(
      `This model answers ${width} values per row; ${frame.rowCount.toLocaleString("en-US")} rows would be more than the ${INFER_MAX_OUTPUT_VALUES.toLocaleString("en-US")} one synchronous call returns. Split the file into smaller ones.`,
      INFER_MAX_OUTPUT_VALUES,
    );
  }
  const m = applyFeaturizer(a.featurizer, frame);
  const ids = rowIds(frame);
  if (a.model_type === "prediction") {
    const out = await rt.withSession(
      v.id,
      () => loadOnnx(rt, v),
      (s) => runGbdtOnnx(s, m.data, m.numRows, m.numFeatures),
    );
    const table = predictionTable(a, out, ids);
    return { table, columnTypes: predictionColumnTypes(a, table) };
  }
  const outs = await rt.withSession(
    v.id,
    () => loadOnnx(rt, v),
    (s) => runGraph(s, m.data, m.numRows, m.numFeatures),
  );
  const neighbours = a.model_type === "search" ? await searchNeighbours(rt, v, a, outs.vectors, m.numRows, missing) : null;
  const table = unsupervisedTable(a, outs, ids, neighbours);
  return { table, columnTypes: unsupervisedColumnTypes(a, table) };
}

/**
 * Builds (or finds) the version's session ahead of `runModel`, so that its fetch and creation can
 * overlap other work; a failure is left for `runModel` to meet and report.
 */
export function prepareSession(rt: ModelRuntime, v: StoredVersion): Promise<void> {
  return rt
    .withSession(
      v.id,
      () => loadOnnx(rt, v),
      () => undefined,
    )
    .catch(() => undefined);
}

async function loadOnnx(rt: ModelRuntime, v: StoredVersion): Promise<Uint8Array> {
  const bytes = await rt.readFile(v, ARTIFACT_FILES.onnx);
  if (!bytes) throw missing(v);
  return bytes;
}

/** A non-prediction model's raw graph outputs for `frame` (what a causal estimate averages). */
export async function graphOutputs(rt: ModelRuntime, v: StoredVersion, a: UnsupervisedArtifact, frame: Frame): Promise<Record<string, GraphOutput>> {
  const m = applyFeaturizer(a.featurizer, frame);
  return rt.withSession(
    v.id,
    () => loadOnnx(rt, v),
    (s) => runGraph(s, m.data, m.numRows, m.numFeatures),
  );
}

/** Values one row of the answer holds (for the output bound). */
export function valuesPerRow(a: ModelArtifact): number {
  switch (a.model_type) {
    case "prediction":
      return 2 + (a.classes?.length ?? 0);
    case "embedding":
      return 1 + Number(a.head.dimensions);
    case "factors":
      return 1 + Number(a.head.n_components);
    case "search":
      return 1 + 2 * Number(a.head.k);
    case "causal":
      return 2 + 2 * treatedArms(a);
    default:
      return 3;
  }
}

/** Each input row's id: its `id` column, else its first column. */
export function rowIds(frame: Frame): Cell[] {
  const idCol = frame.columns.find((c) => c.name === "id") ?? frame.columns[0];
  return Array.from({ length: frame.rowCount }, (_, i) => (idCol ? cellValue(idCol, i) : i));
}
