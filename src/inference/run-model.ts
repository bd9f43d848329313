/**
 * One stored model version applied to a table: its featurizer file (parsed once per isolate or
 * process), its ONNX session and the files its type's answer reads (./artifact-files), all
 * through a ModelRuntime (the Worker's or the trainer's); the graph's outputs shaped into the
 * columns of the version's model type (../model-types).
 */
import { Conflict, TooLarge } from "../core/errors";
import { IsolateCache } from "../core/isolate-cache";
import { INFER_MAX_OUTPUT_VALUES, MAX_CACHED_ARTIFACT_BYTES } from "../core/limits";
import { applyFeaturizer } from "../ml/featurize";
import { cellValue, type Frame } from "../ml/frame";
import { type ModelArtifact, parseModelArtifact, type UnsupervisedArtifact } from "../model-types/artifact";
import type { Cell, GraphOutput, ModelTypeModule, ParquetColumnType, ResultTable } from "../model-types/contract";
import { type ModelTypeRegistry, modelTypes } from "../model-types/registry";
import { ARTIFACT_FILES, type ArtifactFile } from "../storage/keys";
import { groupRows, spreadTable } from "./alike-rows";
import { parsedArtifactFile } from "./artifact-files";
import type { ModelRuntime, StoredVersion } from "./model-runtime";
import { runGraph } from "./run-graph";

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

/** The module of a stored version's model type (a type this service no longer has: 409). */
export function typeOfArtifact(a: ModelArtifact, registry: ModelTypeRegistry = modelTypes): ModelTypeModule {
  const type = registry.find(a.model_type);
  if (!type) throw new Conflict(`This model is of type ${a.model_type}, which this version of the service cannot run.`);
  return type;
}

/** Rows one call of the model may take: within what one call may answer, and the type's own bound. */
export function maxRowsPerCall(type: ModelTypeModule, a: ModelArtifact): number {
  return Math.min(type.answer.maxRowsPerCall ?? Infinity, Math.floor(INFER_MAX_OUTPUT_VALUES / type.answer.valuesPerRow(a)));
}

export interface RunModelOptions {
  registry?: ModelTypeRegistry;
  /**
   * Whether rows the graph answers alike go through it once per group (when the type can group
   * them: ../model-types/contract): the same answer, for the cost of grouping; what the
   * trainer's batch inference asks for, where a table holds many such rows.
   */
  groupAlikeRows?: boolean;
}

/** The model's answer for `frame`: the table and the Parquet type of each column. */
export async function runModel(
  rt: ModelRuntime,
  v: StoredVersion,
  a: ModelArtifact,
  frame: Frame,
  { registry = modelTypes, groupAlikeRows = false }: RunModelOptions = {},
): Promise<{ table: ResultTable; columnTypes: Record<string, ParquetColumnType> }> {
  const type = typeOfArtifact(a, registry);
  const rows = frame.rowCount.toLocaleString("en-US");
  const queries = type.answer.maxRowsPerCall;
  if (queries !== undefined && frame.rowCount > queries) {
    throw new TooLarge(
      `A ${type.name} model answers at most ${queries.toLocaleString("en-US")} query rows per call; this file has ${rows}. Split it into smaller files.`,
      queries,
    );
  }
  const width = type.answer.valuesPerRow(a);
  if (frame.rowCount * width > INFER_MAX_OUTPUT_VALUES) {
    throw new TooLarge(
      `This model answers ${width} values per row; ${rows} rows would be more than the ${INFER_MAX_OUTPUT_VALUES.toLocaleString("en-US")} one synchronous call returns. Split the file into smaller ones.`,
      INFER_MAX_OUTPUT_VALUES,
    );
  }
  const m = applyFeaturizer(a.featurizer, frame);
  const options = { outputs: type.answer.outputs?.(a), chunked: type.answer.chunked };
  const grouping = groupAlikeRows && m.numRows > 0 ? await type.answer.alikeRows?.(a, (name, parse) => optionalFile(rt, v, name, parse)) : null;
  const groups = grouping ? grouping(m.data, m.numRows) : null;
  // with groups, the graph and the answer's table see one row per group (its first), and every
  // row then takes its group's cells: the type answers row by row (../model-types/contract)
  const matrix = groups ? groupRows(m.data, m.numFeatures, groups) : m.data;
  const outputs = await rt.withSession(
    v.id,
    () => loadOnnx(rt, v),
    (s) => runGraph(s, matrix, groups?.count ?? m.numRows, m.numFeatures, options),
  );
  const ids = rowIds(frame);
  const answered = await type.answer.table(a, {
    ids: groups ? Array.from(groups.first, (i) => ids[i]) : ids,
    outputs,
    file: (name, parse) => parsedArtifactFile(rt, v, name, parse, missing),
  });
  const table = groups ? spreadTable(answered, ids, groups) : answered;
  return { table, columnTypes: type.answer.columnTypes(a, table) };
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

/** An artifact file the answer can do without: null when it is not stored (not kept parsed then). */
async function optionalFile<T>(rt: ModelRuntime, v: StoredVersion, name: ArtifactFile, parse: (bytes: Uint8Array) => T): Promise<T | null> {
  try {
    return await parsedArtifactFile(rt, v, name, parse, missing);
  } catch (e) {
    if (e instanceof Conflict) return null;
    throw e;
  }
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

/** Each input row's id: its `id` column, else its first column. */
export function rowIds(frame: Frame): Cell[] {
  const idCol = frame.columns.find((c) => c.name === "id") ?? frame.columns[0];
  return Array.from({ length: frame.rowCount }, (_, i) => (idCol ? cellValue(idCol, i) : i));
}
