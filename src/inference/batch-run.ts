/**
 * Batch inference over a whole table: the rows go through the model version a chunk at a time
 * (the same path as sync inference, so the same columns), progress between chunks, and the
 * answer is stored through a ResultSink. One runner, two places: the queue consumer in the Worker
 * (uploaded files) and the trainer process (stored datasets, which may have millions of rows).
 */
import { BATCH_CHUNK_ROWS } from "../core/limits";
import { type Frame, frameRows } from "../ml/frame";
import type { ParquetColumnType, ResultTable } from "../model-types/contract";
import type { ModelRuntime, StoredVersion } from "./model-runtime";
import { type ResultSink, type StoredResults, storeResults } from "./results";
import { loadArtifact, maxRowsPerCall, runModel, typeOfArtifact } from "./run-model";

export interface BatchRunIO {
  runtime: ModelRuntime;
  sink: ResultSink;
  /** Progress (0–100) and rows done so far; throws when the job was canceled or taken over. */
  report(progress: number, rowsProcessed: number): Promise<void>;
}

/**
 * Applies `version` to every row of `frame` and stores the results. Progress runs from 10 to 80
 * over the rows; storing the results takes the rest.
 */
export async function runBatchInference(io: BatchRunIO, version: StoredVersion, frame: Frame): Promise<StoredResults> {
  const artifact = await loadArtifact(io.runtime, version);
  await io.report(10, 0);
  // rows per call of the model: within what one call may answer (search models query fewer rows)
  const chunk = Math.max(1, Math.min(BATCH_CHUNK_ROWS, maxRowsPerCall(typeOfArtifact(artifact), artifact)));
  const table: ResultTable = {};
  let columnTypes: Record<string, ParquetColumnType> = {};
  for (let start = 0; start < frame.rowCount || start === 0; start += chunk) {
    const end = Math.min(frame.rowCount, start + chunk);
    const part = await runModel(io.runtime, version, artifact, frameRows(frame, start, end));
    for (const [name, values] of Object.entries(part.table)) {
      const column = table[name] ?? (table[name] = []);
      for (const v of values) column.push(v);
    }
    columnTypes = part.columnTypes;
    await io.report(10 + Math.round((70 * end) / Math.max(1, frame.rowCount)), end);
  }
  return storeResults(io.sink, table, columnTypes);
}
