/**
 * Every limit of the service in one place: sizes, counts and budgets that the API promises or
 * that keep a Worker inside its 128 MB. Change one here and every check and message follows.
 */

const MB = 1024 * 1024;

// ── Files ───────────────────────────────────────────────────────────────────────────────────────

/** Direct uploads (multipart): POST /datasets and the inference uploads (the interface's 30 MB). */
export const DIRECT_UPLOAD_MAX_BYTES = 30 * MB;
/** A multipart body carries some bytes beyond the file itself (boundaries, the other fields). */
export const MULTIPART_SLACK_BYTES = 1 * MB;
/** A presigned PUT straight to R2: R2's limit for one PUT (5 GB; larger needs multipart). */
export const SIGNED_UPLOAD_MAX_BYTES = 5 * 1000 * MB;
/**
 * Signed uploads through the Worker's own PUT route (no R2 credentials configured) are bounded
 * by the Worker request-size limit (100 MB on the smallest plan).
 */
export const WORKER_UPLOAD_ROUTE_MAX_BYTES = 100 * MB;
/** How long a signed upload URL stays valid. */
export const UPLOAD_URL_TTL_S = 60 * 60;
/**
 * How long the presigned R2 URLs handed to the trainer stay valid (its source files, its frame's
 * parts, the frame a training reads). Each is used within seconds of being signed; R2 checks the
 * expiry when a request starts, so a transfer longer than this still completes.
 */
export const TRAINER_R2_URL_TTL_S = 60 * 60;
/**
 * How long a trainer told to stop (SIGTERM: a rollout, a scale-in; the platform kills it 15 minutes
 * later) lets its running jobs finish before it hands them back to be run again at once elsewhere.
 * Short: a rollout should not wait on a long training, and a hand-back costs only the work done so
 * far. `TRAINER_SHUTDOWN_GRACE_S` in the trainer's environment overrides it.
 */
export const TRAINER_SHUTDOWN_GRACE_S = 20;
/**
 * The trainer's V8 heap, as a share of its instance's memory (Node's
 * --max-old-space-size-percentage): the instance type (wrangler.toml) is the one sizing setting.
 * The rest is for what is not on the heap: the frames' typed arrays, onnxruntime's wasm memory,
 * the frame upload thread.
 */
export const TRAINER_HEAP_PERCENT = 75;
/**
 * Labelled rows (training + validation) up to which a prediction model's default
 * (`params.search: "auto"`) is a model search; above, one model with the default schedule, and
 * `search: "on"` searches anyway. Why: a trial there is a full fit on millions of rows, so the
 * search spends its whole time budget (300 s) on a few trials, and what tuning buys shrinks with
 * the rows (bench/search: +0.005 R² at 400 k rows, +0.0007 AUC at 200 k; at 2 M rows the best of
 * the two trials that fit was the defaults), while the wait grows to 15× XGBoost's one fit
 * (bench/service/SECOND-MODEL-LARGE-RESULTS.md).
 */
export const SEARCH_AUTO_MAX_ROWS = 1_000_000;
/**
 * A model search's trials on other trainer instances (src/ml/prediction/search/fan-out.ts, the
 * job's object keeps each trial's state): a trial sent and not begun within the dispatch timeout,
 * or begun and silent for the heartbeat timeout (its instance died: out of memory, a crash), is
 * sent again, up to TRIAL_MAX_SENDS sends in all; then it fails alone and the search goes on.
 */
export const TRIAL_DISPATCH_TIMEOUT_S = 60;
export const TRIAL_HEARTBEAT_TIMEOUT_S = 60;
export const TRIAL_MAX_SENDS = 2;
/**
 * Trainer instances one search runs trials on at once, at most (the container binding's
 * `max_instances` in wrangler.toml bounds what a deployment has; SEARCH_INSTANCES sets it).
 */
export const MAX_SEARCH_INSTANCES = 16;
/**
 * The largest search (its binned rows, labels and folds as bytes) whose trials go to other
 * instances: the rows pass through the Worker's control route once, under its 100 MB request
 * limit. A larger one (a holdout search on millions of rows) runs its trials in the coordinator.
 */
export const SEARCH_DATA_MAX_BYTES = 90 * MB;
/** Files one batch upload may name. */
export const BATCH_UPLOAD_MAX_FILES = 100;
/**
 * What one Worker invocation parses (128 MB of memory). Measured on a 29 MB CSV of 1 M rows: a
 * 63 MB frame and +95 MB peak while reading, so about the direct-upload limit fits for CSV.
 * Bigger uploads are ingested by the trainer (refused clearly where there is none).
 */
export const WORKER_INGEST_MAX_BYTES = 32 * MB;

// ── Tables ──────────────────────────────────────────────────────────────────────────────────────

/**
 * Cells (rows × columns, counting the row id) of one frame read in the Worker: numeric storage
 * costs 8 bytes a cell, so ≈ 80 MB of frame. File size does not bound it (a 30 MB Parquet file can
 * declare tens of millions of rows), so the readers count cells. The trainer may pass more.
 */
export const MAX_FRAME_CELLS = 10_000_000;
/**
 * The trainer's memory an ingest may count on: this share of the instance's, the rest left to the
 * kernel and to what a peak measured on one table does not show of another.
 */
const TRAINER_MEMORY_USABLE_PERCENT = 90;
/** The trainer's memory that does not grow with the table (runtime, code, buffers): the ≈ 0.5 GB measured at 10 M and 20 M rows. */
const TRAINER_FIXED_BYTES = 512 * MB;
/**
 * The trainer's peak memory a frame cell costs during an ingest (the larger job than a training):
 * 2.79 GB at 20 M rows × 13 cells (bench/large/RESULTS.md) is 8.8 bytes a cell over the fixed part;
 * a number column is 8 bytes a cell while the file is read.
 */
const TRAINER_INGEST_BYTES_PER_CELL = 9;
/**
 * The trainer's memory in MiB, when it is not the instance's (a local trainer given less than
 * the machine: `npm start` with TRAINER_MEMORY_MB); otherwise the instance's, read by the trainer.
 */
export const TRAINER_MEMORY_ENV = "TRAINER_MEMORY_MB";

/**
 * Cells (rows × columns, the row id counted) of one frame the trainer ingests, from its memory:
 * the instance type sizes it as it sizes the heap. 6 GiB (standard-2): 584 M cells, i.e. 50 M
 * rows of 10 columns (README, "Sizing").
 */
export function trainerMaxFrameCells(memoryBytes: number): number {
  const usable = (memoryBytes * TRAINER_MEMORY_USABLE_PERCENT) / 100 - TRAINER_FIXED_BYTES;
  return Math.max(MAX_FRAME_CELLS, Math.floor(usable / TRAINER_INGEST_BYTES_PER_CELL));
}
/**
 * Cells one synchronous inference call reads: with the featurized matrix and the response it
 * must fit the Worker's 128 MB. Half the ingestion budget; an estimate, not measured.
 */
export const INFER_MAX_CELLS = 5_000_000;
/** Most groups a causal effect estimate answers per request (`group_by`). */
export const EFFECT_MAX_GROUPS = 100;
/**
 * Query rows of one synchronous call to a search model: each row is a search of the index
 * (about 0.1 ms on clustered data, up to ~5 ms at 400k rows without structure), bounded so a
 * call stays within a Worker's CPU time.
 */
export const SEARCH_MAX_QUERY_ROWS = 10_000;
/** Rows per run of a non-prediction graph in the Worker (bounds its intermediate tensors). */
export const GRAPH_CHUNK_ROWS = 4096;
/**
 * Output values (rows × values per row) of one synchronous inference call: an embedding of 256
 * dimensions is 256 values per row, and the whole answer is held in the Worker's memory.
 */
export const INFER_MAX_OUTPUT_VALUES = 5_000_000;
/**
 * A trained version's summary as D1 and the job record keep it (both cap a value at 2 MB): above
 * this its largest fields are replaced by a note; the whole summary is the version's
 * `summary.json` artifact.
 */
export const SUMMARY_MAX_BYTES = 64 * 1024;
/** A table needs at least this many columns besides a generated id (a label and a feature). */
export const MIN_COLUMNS = 2;
/** Wider tables are refused: almost always a transposed table or a wrong delimiter. */
export const MAX_COLUMNS = 2000;
/** One CSV record (an unclosed quote would otherwise make the rest of the file one record). */
export const MAX_RECORD_CHARS = 8 * MB;
/** Rows of the stored head of a table, which answers every preview. */
export const PREVIEW_ROWS = 500;
/** Classes a classification label may have. */
export const MAX_CLASSES = 100;
/**
 * Levels of a category column one model feature carries: the GBDT's bins are one byte (bin 0
 * missing, then the levels, then one "other"), and one byte keeps its histograms and partitions
 * at their speed. A column with more levels gets further features of as many levels each.
 */
export const CATEGORY_LEVELS_PER_FEATURE = 254;
/** Most levels kept per category column (four features); rarer levels count as missing. */
export const MAX_CATEGORY_LEVELS = 4 * CATEGORY_LEVELS_PER_FEATURE;
/**
 * Rows a level past the first feature's levels needs to be kept: below it a level cannot make a
 * split of its own (a GBDT category needs 20 rows in a leaf), and a small table keeps the one
 * feature it always had. The first feature keeps its most frequent levels whatever their count.
 */
export const CATEGORY_EXTRA_LEVEL_MIN_ROWS = 100;

// ── Requests ────────────────────────────────────────────────────────────────────────────────────

/** Page size of every paged list. */
export const PAGE_SIZE_DEFAULT = 50;
export const PAGE_SIZE_MAX = 200;
/** Row ids per look-up or explanation request. */
export const ROW_IDS_MAX = 500;
/** Names and descriptions of datasets and models (and the dataset search text). */
export const NAME_MAX_CHARS = 200;
export const DESCRIPTION_MAX_CHARS = 2000;
/** Declared files of a signed upload. */
export const FILENAME_MAX_CHARS = 255;
export const CONTENT_TYPE_MAX_CHARS = 200;
/** Ids given in a request body, and column names. */
export const ID_MAX_CHARS = 100;
export const COLUMN_NAME_MAX_CHARS = 500;
/** Input columns one model may name. */
export const INPUT_COLUMNS_MAX = 10_000;
/** Rows a preview shows unless asked for more (at most PREVIEW_ROWS). */
export const PREVIEW_ROWS_DEFAULT = 20;
/** Responses remembered per Idempotency-Key this long; a key reused later starts afresh. */
export const IDEMPOTENCY_KEEP_MS = 24 * 60 * 60_000;
/** A reservation of a key older than this belongs to a request that died (client gone, limits hit). */
export const IDEMPOTENCY_ABANDONED_AFTER_MS = 5 * 60_000;
/**
 * The window of both rate limits, in seconds: it must equal `period` of the `[[ratelimits]]`
 * bindings in wrangler.toml (the limits themselves are there); Retry-After is computed from it.
 */
export const RATE_LIMIT_PERIOD_S = 60;
/**
 * A JSON request body (every public JSON route: the largest real one, 500 row ids or a model's
 * configuration, is a few KB). Declared or streamed, above it is a 413 before parsing.
 */
export const JSON_BODY_MAX_BYTES = 1 * MB;
/** JSON bodies of the trainer's control routes (a job's output, at most the 2 MB a job record holds). */
export const INTERNAL_JSON_BODY_MAX_BYTES = 4 * MB;
/**
 * Nesting of arrays and objects in a JSON body. No request needs more than a handful of levels;
 * deeper input would exhaust the stack of the code that walks it (validation, error bodies).
 */
export const JSON_MAX_DEPTH = 64;
/** Characters of the offending value a 422 item echoes back (`input`); longer values are cut. */
export const ERROR_INPUT_MAX_CHARS = 200;
/** Characters of an error message (a `detail` string, a 422 item's `msg`): messages quote names from the request. */
export const ERROR_DETAIL_MAX_CHARS = 2000;
/** Items of one 422 (10,000 unknown keys are not 10,000 items); one more item says how many were left out. */
export const ERROR_ITEMS_MAX = 20;

// ── Jobs ────────────────────────────────────────────────────────────────────────────────────────

/** Points kept in a job's metrics history (older ones thinned out, see jobs/metrics-history). */
export const MAX_HISTORY_POINTS = 200;
/** Metric points in one progress report from a trainer (it batches them between reports). */
export const MAX_POINTS_PER_REPORT = 500;
/** Characters of a failure message a trainer reports. */
export const FAILURE_MESSAGE_MAX_CHARS = 4000;
/**
 * How long after its answer a read of a sync inference job waits for the job's record, which is
 * written after the answer (jobs/finished-jobs). A small job's record lands about 25 ms after the
 * answer plus one D1 write; a large one's after its files are in R2 first (up to 30 MB), so the
 * bound is generous. Only ids of such jobs that are this young wait (jobs/ids); every other
 * unknown id is a 404 at once.
 */
export const FINISHED_JOB_RECORD_WAIT_MS = 10_000;
/**
 * The GBDT spreads a step of a tree's growth (a histogram, its split search) over the trainer's
 * threads only from this many cells (rows × selected features) up: below, handing the step over
 * costs more than it saves, and a training whose whole table is smaller never touches the threads
 * (src/ml/gbdt/parallel-grow.ts; measured in bench/ml/threads.ts).
 */
export const GBDT_PARALLEL_MIN_CELLS = 100_000;
/**
 * k-means (src/ml/kmeans/row-passes.ts) and exact nearest-neighbour search (src/ml/knn/search.ts)
 * go on the trainer's threads only from this much work per pass over the rows (k-means: rows ×
 * columns × k; search: queries × index rows × dimensions): below, handing a pass over costs more
 * than it saves, and a fit of a small table never touches the threads.
 */
export const KMEANS_PARALLEL_MIN_CELLS = 2_000_000;
export const SEARCH_PARALLEL_MIN_CELLS = 2_000_000;
/**
 * Threads the trainer trains on, counting its main thread: the instance's vCPUs
 * (os.availableParallelism()) unless `TRAINER_THREADS` in its environment says otherwise.
 */
export const TRAINER_THREADS_ENV = "TRAINER_THREADS";

// ── Memory of one Worker isolate ────────────────────────────────────────────────────────────────

/** ONNX sessions kept per isolate, by count and by model bytes. */
export const MAX_CACHED_SESSIONS = 32;
export const MAX_CACHED_SESSION_BYTES = 48 * MB;
/**
 * Featurizer files kept parsed per isolate, by their JSON length (the newest is always kept).
 * Bytes rather than a count (it was 64 files): a table of tens of columns gives a file of a few KB,
 * so hundreds fit, while wide categorical tables give files of MBs, 64 of which would not fit the
 * isolate. Parsed, a file takes about 1.3–2.6× its JSON on the heap (measured in Node: 2000 numeric
 * columns 1.25×, 200 columns of 254 short categories 2.6×), so this is at most ~10 MB of heap.
 */
export const MAX_CACHED_ARTIFACT_BYTES = 4 * MB;
/** Files a type's answer reads besides the graph (a search model's index), kept parsed per isolate (by file size; the newest is always kept). */
export const MAX_CACHED_INDEX_BYTES = 48 * MB;
/** Rows per stored JSON page of an inference job's results. */
export const RESULT_PAGE_ROWS = 1000;
/**
 * Result pages an inference job writes at once (a million rows are a thousand pages, each a round
 * trip to R2, or through the control route from the trainer: one after the other, the round trips
 * were most of a large batch's time). Few enough to stay far below a Worker's 6 connections.
 */
export const RESULT_PAGE_WRITES_IN_FLIGHT = 4;
/**
 * Result pages the trainer sends in one control call (100 pages: about 2–3 MB of JSON for a few
 * columns): the call's checks (the job still running, its model version) once for them all.
 */
export const RESULT_PAGES_PER_WRITE = 100;
/** Rows one `GET /jobs/{id}/results?format=json` call returns at most (default 100). */
export const RESULT_LIMIT_MAX = 1000;
export const RESULT_LIMIT_DEFAULT = 100;
/** Rows a batch inference job runs through the model at a time (bounds the graph's memory; progress between). */
export const BATCH_CHUNK_ROWS = 50_000;
/**
 * A batch inference over a stored dataset version of more rows than this is cut into parts of
 * BATCH_PART_ROWS contiguous rows, run by several trainer instances at once (the search's
 * instances: ../trainer-control/trainer-client's searchInstances) and put together in order.
 * A part is a whole number of result pages, so each part writes its own pages. A part's result
 * (its CSV rows and its table for the Parquet file) passes once through the Worker's control
 * route, well under its 100 MB request limit.
 */
export const BATCH_SPLIT_MIN_ROWS = 200_000;
export const BATCH_PART_ROWS = 250_000;
/**
 * A sync inference whose input file and JSON results together take at most this many bytes keeps
 * them in D1 with its job record (one write after the answer) instead of as R2 objects (two more
 * writes, and two billed R2 operations per call). Small enough that a page of such rows stays light.
 */
export const INLINE_JOB_FILES_MAX_BYTES = 16 * 1024;
/**
 * Inference jobs' files (the input rows, kept so that they can be explained, and the results)
 * are deleted this long after the job finished, by the job's own object.
 */
export const INFERENCE_FILES_RETENTION_DAYS = 30;
/**
 * Columns listed per explained row; the rest are summed into one "(N other columns)" entry, so
 * the contributions still add up and 500 explained rows stay well under the 2 MB a job record
 * holds (the Durable Object's and D1's row limit).
 */
export const EXPLAIN_MAX_COLUMNS = 20;

// ── Warm path caches (per isolate) ──────────────────────────────────────────────────────────────

/** An API key's principal is reused this long: a key revoked elsewhere stops working within it. */
export const PRINCIPAL_CACHE_TTL_MS = 30_000;
export const PRINCIPAL_CACHE_MAX = 1000;
/**
 * A principal or a model used within this long of its cache expiry is looked up again after the
 * response (refreshed ahead), so steady traffic never waits for the lookup; the expiries above
 * still bound how old a cached answer can be.
 */
export const PRINCIPAL_REFRESH_AHEAD_MS = 10_000;
export const MODEL_REFRESH_AHEAD_MS = 1_500;
/** A model with its versions is reused this long: a new ready version or a delete is seen within it. */
export const MODEL_CACHE_TTL_MS = 5_000;
export const MODEL_CACHE_MAX = 500;
/**
 * A key revoked or a model deleted by an isolate is refused there without a lookup this long:
 * longer than any read replica's lag, so a lagging replica cannot hand it back.
 */
export const DELETED_REMEMBERED_MS = 5 * 60_000;
/**
 * A principal read from a read replica is reused this long only (a replica may not have seen a
 * revocation yet): revocation everywhere within PRINCIPAL_CACHE_TTL_MS plus this, plus the lag.
 */
export const REPLICA_PRINCIPAL_TTL_MS = 15_000;
