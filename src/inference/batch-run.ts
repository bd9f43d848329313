/**
 * Batch inference over a whole table: the rows go through the model version a chunk at a time
 * (the same path as sync inference, so the same columns), progress between chunks, and the
 * answer is stored through a ResultSink. One runner, two places: the queue consumer in the Worker
 * (uploaded files) and the trainer process (stored datasets, which may have millions of rows).
 * A very large table is cut into row ranges run by several trainers (../container/batch-parts):
 * each range goes through `inferRows` alone.
 */
import { BATCH_CHUNK_ROWS } from "../core/limits";
import { type Frame, frameRows } from "../ml/frame";
import type { ModelArtifact } from "../model-types/artifact";
import type { Cell, ParquetColumnType, ResultTable } from "../model-types/contract";
import type { ModelRuntime, StoredVersion } from "./model-runtime";
import { type ResultSink, type StoredResults, storeResults } from "./results";
import { loadArtifact, maxRowsPerCall, type RunModelOptions, runModel, typeOfArtifact } from "./run-model";

export interface BatchRunIO {
  runtime: ModelRuntime;
  sink: ResultSink;
  /** Progress (0–100) and rows done so far; throws when the job was canceled or taken over. */
  report(progress: number, rowsProcessed: number): Promise<void>;
  /**
   * Whether rows the graph answers alike go through it once per group (../inference/run-model):
   * the trainer's runs do; the Worker's do not, because the trees parsed and compiled for grouping
   * (together larger than the model's gbdt.json, megabytes for a large search blend) might not fit
   * next to the table in its 128 MB.
   */
  groupAlikeRows?: boolean;
}

/** The answer for some rows: the columns, and their Parquet types (the last chunk's: every chunk has the same). */
export interface InferredRows {
  table: ResultTable;
  columnTypes: Record<string, ParquetColumnType>;
}

/**
 * Applies the loaded model version to rows [start, end) of `frame`, a chunk at a time;
 * `onChunk(rowsDone)` after each (it throws to stop). The answer of a range does not depend on
 * how the table around it was cut: each row's answer is its own.
 */
export async function inferRows(
  runtime: ModelRuntime,
  version: StoredVersion,
  artifact: ModelArtifact,
  frame: Frame,
  range: { start: number; end: number },
  onChunk: (rowsDone: number) => Promise<void>,
  options: Pick<RunModelOptions, "groupAlikeRows"> = {},
): Promise<InferredRows> {
  // rows per call of the model: within what one call may answer (search models query fewer rows)
  const chunk = Math.max(1, Math.min(BATCH_CHUNK_ROWS, maxRowsPerCall(typeOfArtifact(artifact), artifact)));
  const chunks: Record<string, Cell[][]> = {};
  let columnTypes: Record<string, ParquetColumnType> = {};
  for (let start = range.start; start < range.end || start === range.start; start += chunk) {
    const end = Math.min(range.end, start + chunk);
    const part = await runModel(runtime, version, artifact, frameRows(frame, start, end), options);
    for (const [name, values] of Object.entries(part.table)) (chunks[name] ??= []).push(values);
    columnTypes = part.columnTypes;
    await onChunk(end - range.start);
  }
  // each column joined once at the end (concat copies in bulk; a push per value cost more than the model)
  const table: ResultTable = {};
  for (const [name, parts] of Object.entries(chunks)) table[name] = parts.length === 1 ? parts[0] : ([] as Cell[]).concat(...parts);
  return { table, columnTypes };
}

/**
 * Applies `version` to every row of `frame` and stores the results. Progress runs from 10 to 80
 * over the rows; storing the results takes the rest.
 */
export async function runBatchInference(io: BatchRunIO, version: StoredVersion, frame: Frame): Promise<StoredResults> {
  const artifact = await loadArtifact(io.runtime, version);
  await io.report(10, 0);
  const rows = { start: 0, end: frame.rowCount };
  const { table, columnTypes } = await inferRows(
    io.runtime,
    version,
    artifact,
    frame,
    rows,
    (done) => io.report(10 + Math.round((70 * done) / Math.max(1, frame.rowCount)), done),
    { groupAlikeRows: io.groupAlikeRows },
  );
  return storeResults(io.sink, table, columnTypes);
}
