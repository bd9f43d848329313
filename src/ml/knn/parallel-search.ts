/**
 * A search's queries spread over the host's threads (../parallel), in ranges: each query is
 * searched alone (./scan searchRange) and written at its own place, so the result is the same
 * bits for any number of threads, ties included.
 *
 * The threads read the index from shared memory: its arrays are copied there once per index
 * (kept while the index lives), which costs a pass over the index file — small next to a search
 * large enough to go on the threads (SEARCH_PARALLEL_MIN_CELLS).
 */
import { SEARCH_PARALLEL_MIN_CELLS } from "../../core/limits";
import { type ParallelExecutor, sharedBuffer } from "../parallel";
import { type RowResult, type SearchableIndex, searchRange } from "./scan";
import type { SearchIndex } from "./types";

/** Queries per task at least, and tasks per thread (queries cost unevenly: smaller tasks balance). */
const MIN_TASK_QUERIES = 4;
const TASKS_PER_THREAD = 8;

/** What every thread sees (typed arrays over shared memory, and constants). */
interface SearchState {
  index: SearchableIndex;
  queries: Float64Array;
  numQueries: number;
  nprobe: number;
  tasks: number;
  out: RowResult;
  /** Per task: the rows whose distance it computed. */
  scanned: Float64Array;
}

/** Whether a search of `numQueries` queries goes on the threads: enough queries for every thread, and enough work (queries × rows × dims). */
export function searchesInParallel(executor: ParallelExecutor | undefined, index: SearchIndex, numQueries: number): executor is ParallelExecutor {
  return (
    executor !== undefined &&
    executor.threads > 1 &&
    numQueries >= executor.threads * MIN_TASK_QUERIES &&
    numQueries * index.rows * index.dims >= SEARCH_PARALLEL_MIN_CELLS
  );
}

function taskStart(task: number, s: { numQueries: number; tasks: number }): number {
  return Math.floor((task * s.numQueries) / s.tasks);
}

/** One thread's runner of tasks (the executor's kernel "knn-search"). */
export function searchKernel(state: object): (task: number) => void {
  const s = state as SearchState;
  return (task) => {
    s.scanned[task] = searchRange(s.index, s.queries, taskStart(task, s), taskStart(task + 1, s), s.nprobe, s.out);
  };
}

export function searchOnThreads(
  executor: ParallelExecutor,
  index: SearchIndex,
  queries: Float64Array,
  numQueries: number,
  k: number,
  nprobe: number,
): { result: RowResult; scanned: number } {
  const tasks = Math.min(executor.threads * TASKS_PER_THREAD, Math.floor(numQueries / MIN_TASK_QUERIES));
  const d = index.dims;
  const state: SearchState = {
    index: sharedIndex(index),
    queries: copy(queries.subarray(0, numQueries * d)),
    numQueries,
    nprobe,
    tasks,
    out: { k, rows: new Int32Array(sharedBuffer(numQueries * k * 4)), dist2: new Float64Array(sharedBuffer(numQueries * k * 8)) },
    scanned: new Float64Array(sharedBuffer(tasks * 8)),
  };
  const session = executor.open("knn-search", state);
  try {
    session.run(tasks);
  } finally {
    session.close();
  }
  let scanned = 0;
  for (let t = 0; t < tasks; t++) scanned += state.scanned[t];
  // plain arrays for the caller (views over shared memory would keep it, and some APIs refuse them)
  return { result: { k, rows: Int32Array.from(state.out.rows), dist2: Float64Array.from(state.out.dist2) }, scanned };
}

const shared = new WeakMap<SearchIndex, SearchableIndex>();

/** The index's arrays in shared memory (made once per index). */
function sharedIndex(index: SearchIndex): SearchableIndex {
  let s = shared.get(index);
  if (!s) {
    const { ids: _ids, ...rest } = index;
    const base = {
      ...rest,
      centroids: copy(index.centroids),
      start: copy(index.start),
      radius: copy(index.radius),
      rho: copy(index.rho),
      rowOf: copy(index.rowOf),
    };
    s =
      index.kind === "exact"
        ? { ...base, kind: "exact", vectors: copy(index.vectors) }
        : { ...base, kind: "ivf", lo: copy(index.lo), step: copy(index.step), codes: copy(index.codes) };
    shared.set(index, s);
  }
  return s;
}

type Typed = Float64Array | Float32Array | Uint32Array | Uint8Array;

function copy<T extends Typed>(a: T): T {
  const out = new (a.constructor as new (b: ArrayBuffer | SharedArrayBuffer) => T)(sharedBuffer(a.byteLength));
  out.set(a as never);
  return out;
}
