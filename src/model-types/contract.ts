/**
 * What a model type is, as one typed contract. Each type of the service is one module that
 * implements it (./prediction, ./anomaly, ...), listed once in ./registry; the train route, the
 * training runner, inference, explanations and the API document know a type only through it.
 *
 * Nothing here names a Cloudflare type, a database or an ONNX runtime: the Worker and the trainer
 * process both bundle the modules, and a type's training, answer and explanation are plain
 * functions of their inputs. Members are written as methods so that a module typed with its own
 * artifact (a prediction model's, say) is still a `ModelTypeModule` of the registry's list.
 */
import type { z } from "zod";
import type { ColumnContribution } from "../ml/explain/explain-prediction";
import type { Frame } from "../ml/frame";
import type { AlikeRows } from "../ml/gbdt/alike-rows";
import type { ParallelExecutor } from "../ml/parallel";
import type { TrialPool } from "../ml/prediction/search/fan-out";
import type { ColumnProfile } from "../ml/profile";
import type { Representation } from "../ml/representation/representation";
import type { ArtifactFile } from "../storage/keys";
import type { ModelArtifact } from "./artifact";

export interface ModelTypeModule<A extends ModelArtifact = ModelArtifact, N extends string = string> {
  /** The `model_type` of the API. */
  readonly name: N;
  /** Its `params`: the schema every train request is validated with. */
  readonly params: ParamsSpec;
  /** How it reads a train request's columns, checked before a job is queued. */
  readonly request: RequestSpec;
  /** Its training, as the trainer runs it. */
  readonly training: TrainingSpec;
  /** The columns it answers for each input row. */
  readonly answer: AnswerSpec<A>;
  /** How its rows are explained; null when they cannot be (the explain route answers 409). */
  readonly explain: ExplainSpec<A> | null;
  /** What the API document says of it. */
  readonly docs: TypeDocs;
}

// ── Parameters and the request ─────────────────────────────────────────────────────────────────

interface ParamsSpec {
  /** Strict (an unknown key is refused: most often a typo); every key optional. */
  schema: z.ZodObject;
  /** What the engine uses for a key the request leaves out, where a request check needs it. */
  defaults: Readonly<Record<string, unknown>>;
}

/** The columns of a train request (params already validated by the type's schema). */
export interface RequestColumns {
  label_column: string | null;
  input_columns: string[] | null;
  params: Record<string, unknown>;
}

interface RequestSpec {
  /**
   * What `label_column` is to this type: the target it predicts, the outcome whose effect it
   * estimates, or nothing (a label given anyway is ignored and not kept).
   */
  label: "target" | "outcome" | null;
  /**
   * What the dataset version's column profile tells before training: throws InvalidInput naming
   * the request's fields (a 422 now rather than a failed job later). The job checks the data again.
   */
  check(profile: ColumnProfile[], rowCount: number, req: RequestColumns): void;
}

// ── Training ────────────────────────────────────────────────────────────────────────────────────

export interface TrainingSpec {
  /**
   * Trains step by step. Input errors (MlInputError) are thrown before the first step; between
   * steps the runner reports progress, which is where a cancel stops the run.
   */
  run(input: TrainInput): Generator<TrainEvent, TrainedModel, void>;
  /**
   * Reads the table one column at a time, never cell by cell across columns: the runner then
   * loads it with each column widened from its stored form only when read (one held at a time),
   * which on a large table is most of the job's memory (ingest/lazy-columns).
   */
  readsColumnByColumn?: boolean;
  /**
   * Whether a training with these fields reads the representation's shared encoder: the runner
   * then counts its ssl steps when the stored representation lacks it (the type trains it first,
   * ../ml/representation addEncoderSteps). Absent: never (the encoder is not trained for it).
   */
  readsSharedEncoder?(task: TrainTaskFields): boolean;
}

/** The training task's fields a type reads (the job's input). */
interface TrainTaskFields {
  /** The type's own name (for messages). */
  model_type: string;
  model_name: string;
  label_column: string | null;
  input_columns: string[] | null;
  params: Record<string, unknown>;
}

/** What a type's training gets; the runner loaded it, and stores what comes back. */
export interface TrainInput {
  task: TrainTaskFields;
  /**
   * The table, handed over once (a second call throws): a type that no longer needs it (a
   * prediction model once its rows are binned) lets go of it, and on a large table the frame is
   * most of the job's memory.
   */
  takeFrame(): Frame;
  /** The dataset version's shared representation when one is stored; null: the type builds it. */
  representation: Representation | null;
  /**
   * Steps training the shared encoder takes here (its `ssl` phase): 0 when the type does not read
   * it (readsSharedEncoder), when the stored representation has it, or when there is nothing to encode.
   */
  sslSteps: number;
  /** The job's clock, in milliseconds (a time budget runs on it; tests inject one). */
  now(): number;
  /** Called as each stage of the engine's work starts (logs and the memory bench). */
  onStage(stage: string): void;
  /** Other trainer instances a model search may run its trials on, several at once; null: none. */
  trialPool: TrialPool | null;
  /** The host's threads for the engine (the trainer's); absent: one thread. */
  parallel?: ParallelExecutor;
}

/** A metric point of the training's loss curve (the job's `metrics_history`). */
interface LossPoint {
  step: number;
  train_loss: number | null;
  val_loss: number | null;
}

export type TrainEvent =
  /** Progress: the job's `current_step` of `total_steps`, its phase, and a loss point to record. */
  | { kind: "step"; step: number; total: number; phase: "ssl" | "finetune" | null; point: LossPoint | null }
  /** The shared representation was built or completed (its encoder added) here: the runner stores it for the models after this one; the ssl part ends. */
  | { kind: "representation"; representation: Representation }
  /**
   * Work goes on with no step to count (a column of a large table profiled or binned: seconds
   * each on tens of millions of rows): the runner sends the job's heartbeat if one is due, which
   * is also where a cancel is noticed.
   */
  | { kind: "alive" }
  /** Work done elsewhere (trials on other instances): the runner awaits `until`, reporting meanwhile, before it asks for the next event. */
  | { kind: "wait"; until: Promise<unknown> };

/**
 * A featurizer file before the runner stamps it with the model type's name and the service's
 * runtime version (so that a module cannot file its model under another type's name).
 */
type UnstampedArtifact = ModelArtifact extends infer T ? (T extends unknown ? Omit<T, "model_type" | "service_runtime_version"> : never) : never;

/** A trained model, before the runner stores it. */
export interface TrainedModel {
  /** The featurizer file (`featurizer.json`), but for the type's name and the runtime version, which the runner adds. */
  artifact: UnstampedArtifact;
  /** The ONNX graph with `metadata` embedded (the runner passes the featurizer file, so a downloaded model is whole). */
  graph(metadata: Record<string, string>): Uint8Array;
  /** Files stored next to the graph (what explanations read, a search index). */
  files: { name: ArtifactFile; bytes: Uint8Array }[];
  /** The interface's metric keys of this type ({} when it has none). */
  metrics: Record<string, number | null>;
  /** Type-specific fields of the training job's `output`. */
  output: Record<string, unknown>;
  /** What the version shows about itself (stored as `summary.json`); null when it has nothing to show. */
  summary: Record<string, unknown> | null;
}

// ── Answers ─────────────────────────────────────────────────────────────────────────────────────

/** One output cell: a value, or a list (an embedding, a row's neighbours). */
export type Cell = string | number | boolean | null | (string | number | null)[];
/** Column name → one cell per row, in column order. */
export type ResultTable = Record<string, Cell[]>;
/** How a column is written to Parquet (lists are written as their JSON text). */
export type ParquetColumnType = "string" | "double" | "int64" | "boolean";

/** One output of the ONNX graph: row-major values (int64 and bool as numbers) and its shape. */
export interface GraphOutput {
  data: Float64Array;
  dims: number[];
}

/** What shaping an answer gets. */
export interface AnswerInput {
  /** Each input row's id. */
  ids: Cell[];
  /** The graph's outputs for the rows ({} for zero rows: the graph was not run). */
  outputs: Record<string, GraphOutput>;
  /** One of the version's artifact files, parsed by `parse` (kept parsed per isolate by the caller; a missing file is the caller's error). */
  file<T>(name: ArtifactFile, parse: (bytes: Uint8Array) => T): Promise<T>;
}

/** One of the version's artifact files, parsed by `parse` (kept parsed per isolate by the caller); null when it is not stored. */
type OptionalFile = <T>(name: ArtifactFile, parse: (bytes: Uint8Array) => T) => Promise<T | null>;

interface AnswerSpec<A extends ModelArtifact> {
  /** Values one answer row holds (what bounds the rows of one synchronous call). */
  valuesPerRow(a: A): number;
  /** Query rows one call may take, when fewer than the output bound allows (a search per row). */
  readonly maxRowsPerCall?: number;
  /** The outputs to fetch from the graph (default: every output). */
  outputs?(a: A): string[];
  /**
   * Whether rows go through the graph in chunks of GRAPH_CHUNK_ROWS: graphs with intermediate
   * tensors several times their input (a one-hot expansion, distances to every centroid) do; a
   * tree ensemble's run is cheapest whole.
   */
  readonly chunked: boolean;
  /**
   * How to group rows the graph answers alike, so that one row of each group goes through it
   * and through `table` (a tree ensemble: rows every split sends the same way); null when the
   * version cannot tell (a file it needs is not stored). Without it every row does. A type that
   * groups must answer row by row: each row's cells but `id` a function of its outputs alone.
   */
  alikeRows?(a: A, file: OptionalFile): Promise<((matrix: Float32Array, numRows: number) => AlikeRows | null) | null>;
  /** The answer's columns, `id` first. */
  table(a: A, input: AnswerInput): ResultTable | Promise<ResultTable>;
  /** The Parquet type of each column but `id`, known even for an answer without rows. */
  columnTypes(a: A, table: ResultTable): Record<string, ParquetColumnType>;
}

// ── Explanations ────────────────────────────────────────────────────────────────────────────────

/** One explanation per row: per-column contributions, and the engine's own fields besides. */
export type RowExplainer = (frame: Frame, rows: number[]) => { feature_contributions: ColumnContribution[] }[];

interface ExplainSpec<A extends ModelArtifact> {
  /**
   * The version's explainer, from the artifact files it reads (`file` answers null for a file
   * not stored); null when a file it needs is missing (a version trained before its type stored
   * it: the caller says to retrain).
   */
  load(a: A, file: (name: ArtifactFile) => Promise<unknown | null>): Promise<RowExplainer | null>;
}

// ── The API document ────────────────────────────────────────────────────────────────────────────

/** Sentences of the API document about the type; each list joins the types' parts in registry order. */
interface TypeDocs {
  /** Its parameters and defaults ("Embedding: dimensions (16), seed"). */
  params: string;
  /** The columns of its answer after `id`. */
  columns: string;
  /** Its metric keys; null when it has none. */
  metrics: string | null;
  /** What its summary holds; null when it has none. */
  summary: string | null;
}
