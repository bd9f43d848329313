/**
 * The prediction model, end to end: label handling, task inference, featurizer from the shared
 * representation, deterministic train/validation split, GBDT training with early stopping,
 * validation metrics. This is what the trainer service calls. With its rows (./data) and its
 * parameters (./params) it sits in ml/prediction, at ml's top layer beside the other model types
 * (ml/causal, ml/unsupervised): it builds on the GBDT and the shared representation, and nothing
 * in the engine imports it.
 */

import type { ColumnDone } from "../column-done";
import { MlInputError } from "../errors";
import { buildFeaturizerSteps, type FeaturizerSpec, requireFeatures } from "../featurize";
import type { Frame } from "../frame";
import { findColumn } from "../frame";
import type { FeatureBins } from "../gbdt/bins";
import type { GbdtModel } from "../gbdt/model";
import { transformScores } from "../gbdt/objective";
import { type IterationInfo, type StopReason, type TrainGbdtResult, trainGbdtBinnedSteps } from "../gbdt/train";
import { extractLabel, type Label, type Task } from "../label";
import { classificationMetrics, type MetricValue, regressionMetrics } from "../metrics";
import type { ParallelExecutor } from "../parallel";
import { buildRepresentationSteps, deriveModelFeatures, modelFeaturizer, type Representation } from "../representation/representation";
import { type BinnedRows, binRowsSteps, splitRows } from "./data";
import { gbdtParams, type PredictionParams, predictionParams } from "./params";
import type { TrialPool } from "./search/fan-out";
import type { SearchSummary } from "./search/search";

export interface TrainPredictionOptions {
  labelColumn: string;
  inputColumns?: string[];
  task?: Task;
  params?: PredictionParams;
  /** Shared representation of this dataset (built when absent; returned either way). */
  representation?: Representation;
  /** Explicit split (frame row indices); rows with a missing label are dropped from it. */
  split?: { train: ArrayLike<number>; val: ArrayLike<number> };
  onIteration?: (info: IterationInfo) => boolean | undefined;
  shouldStop?: () => boolean;
  /** Clock of the time budget, in milliseconds (default performance.now); tests inject one. */
  now?: () => number;
  /** Called as each stage of the work starts (logs and the memory bench, bench/large/train-memory.ts). */
  onStage?: (stage: PredictionStage) => void;
  /** Where a model search runs its trials when it may run several at once (other trainer instances). */
  trialPool?: TrialPool | null;
  /** Threads to boost on (see ../gbdt/train); absent: this thread only. */
  parallel?: ParallelExecutor;
}

/**
 * The stages of a prediction model's training, in order: the shared representation's profile,
 * featurizer and bins (only when it is built here), the model's features, their bins, the
 * boosting rounds.
 */
type PredictionStage = "representation" | "featurize" | "bin" | "boost";

export interface PredictionModelResult {
  model: GbdtModel;
  featurizer: FeaturizerSpec;
  representation: Representation;
  task: Task;
  /** Class labels in output order (classification), else null. */
  classes: string[] | null;
  /** Metrics on the validation rows (on the training rows when there are too few rows to hold any out). */
  metrics: Record<string, MetricValue>;
  validation: {
    /** How rows were held out: a split (stratified, random, explicit), none, or the search's cross-validation. */
    method: "stratified" | "random" | "explicit" | "none" | "cross_validation";
    trainRows: number;
    valRows: number;
    /** Rows dropped because their label is missing. */
    droppedRows: number;
    metricsOn: "validation" | "train";
  };
  history: IterationInfo[];
  stopReason: StopReason;
  rounds: number;
  /** The model search that chose the model (null when it was off: one model with the request's parameters). */
  search: SearchSummary | null;
}

/** Seed of the shared representation's bin sample, independent of any model's seed. */
const REPRESENTATION_SEED = 0;

/** Below this many labelled rows nothing is held out. */
const MIN_ROWS_FOR_VALIDATION = 10;

/** One boosting round of a prediction model's training. */
export interface FinetuneStep {
  phase: "finetune";
  /** 1-based boosting round. */
  iteration: number;
  /** Upper bound on the rounds (early stopping usually ends sooner). */
  maxRounds: number;
  trainLoss: number;
  valLoss: number | null;
}

/**
 * Everything boosting needs, and nothing of the frame: once it is prepared, a caller that lets go
 * of the frame (and of the preparing generator) frees the table's memory during boosting.
 */
export interface PreparedPrediction {
  representation: Representation;
  featurizer: FeaturizerSpec;
  bins: FeatureBins[];
  label: Label;
  train: Int32Array;
  val: Int32Array;
  binned: BinnedRows;
  method: PredictionModelResult["validation"]["method"];
  droppedRows: number;
}

/**
 * The first part of the training: checks, the shared representation (built here when none is
 * given, without its encoder, which a prediction model never reads), the model's features, the
 * split and the rows' bins (feature by feature: the float matrix of the table is never built).
 */
export function preparePrediction(frame: Frame, opts: TrainPredictionOptions): PreparedPrediction {
  const steps = preparePredictionSteps(frame, opts);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** The same, a `column` yield after each column profiled or binned (a large table's job reports there). */
export function* preparePredictionSteps(frame: Frame, opts: TrainPredictionOptions): Generator<ColumnDone, PreparedPrediction, void> {
  if (frame.rowCount === 0) throw new MlInputError("the dataset has no rows");
  const labelCol = findColumn(frame, opts.labelColumn);
  if (!labelCol) throw new MlInputError(`label column "${opts.labelColumn}" not found`);
  if (opts.inputColumns) {
    const unknown = opts.inputColumns.filter((c) => !findColumn(frame, c));
    if (unknown.length) throw new MlInputError(`input columns not found: ${unknown.join(", ")}`);
  }
  const p = predictionParams(opts.params);
  const lab = extractLabel(labelCol, frame.rowCount, opts.task);
  // The representation is shared by every model on this dataset, so it must not depend on which
  // model happens to build it: a fixed seed, never the model's (above 200k rows the bin sample
  // depends on it).
  let rep = opts.representation;
  if (!rep) {
    // fail before building it (the features deriveModelFeatures gives below); the build reuses
    // this featurizer rather than describing every column again
    const tableFeaturizer = yield* buildFeaturizerSteps(frame, { labelColumn: null });
    requireFeatures(modelFeaturizer(tableFeaturizer, opts.labelColumn, opts.inputColumns), opts.labelColumn);
    opts.onStage?.("representation");
    // without its encoder: no ssl step, only the profile's column steps
    const build = buildRepresentationSteps(frame, { seed: REPRESENTATION_SEED, encoder: false, featurizer: tableFeaturizer });
    for (let r = build.next(); ; r = build.next()) {
      if (r.done) {
        rep = r.value;
        break;
      }
      if (r.value.phase === "column") yield r.value;
    }
  }
  opts.onStage?.("featurize");
  const { featurizer, bins } = deriveModelFeatures(rep, opts.labelColumn, opts.inputColumns);
  requireFeatures(featurizer, opts.labelColumn);

  // split
  let train: Int32Array;
  let val: Int32Array;
  let method: PredictionModelResult["validation"]["method"];
  const labelled = lab.rows;
  if (opts.split) {
    const has = new Uint8Array(frame.rowCount);
    for (const r of labelled) has[r] = 1;
    train = Int32Array.from(opts.split.train).filter((r) => has[r] === 1);
    val = Int32Array.from(opts.split.val).filter((r) => has[r] === 1);
    if (train.length === 0) throw new MlInputError("the training split has no rows with a label");
    method = "explicit";
  } else if (labelled.length < MIN_ROWS_FOR_VALIDATION || p.validation_fraction <= 0) {
    train = labelled;
    val = new Int32Array(0);
    method = "none";
  } else {
    ({ train, val } = splitRows(labelled, lab.task === "classification" ? lab.y : null, p.validation_fraction, p.seed));
    method = lab.task === "classification" ? "stratified" : "random";
  }
  opts.onStage?.("bin");
  const binned = yield* binRowsSteps(featurizer, bins, frame, train, val);
  return { representation: rep, featurizer, bins, label: lab, train, val, binned, method, droppedRows: frame.rowCount - labelled.length };
}

/** The second part: boosting on the prepared rows (one `finetune` step per round), then the validation metrics. */
export function* boostPredictionSteps(
  prepared: PreparedPrediction,
  opts: TrainPredictionOptions,
): Generator<FinetuneStep, PredictionModelResult, void> {
  const { featurizer, label: lab, train, val } = prepared;
  const p = predictionParams(opts.params);
  const K = lab.classes ? lab.classes.length : 1;
  const params = gbdtParams(opts.params, train.length, lab.task, K);
  const boosting = trainGbdtBinnedSteps({
    numFeatures: featurizer.features.length,
    featureNames: featurizer.features.map((f) => f.name),
    label: lab.y,
    trainRows: train,
    valRows: val,
    bins: prepared.bins,
    trainBins: prepared.binned.trainBins,
    valBins: prepared.binned.valBins,
    classes: lab.classes ?? undefined,
    params,
    onIteration: opts.onIteration,
    shouldStop: opts.shouldStop,
    timeBudgetMs: p.time_budget_s * 1000,
    now: opts.now,
    parallel: opts.parallel,
  });
  let res: TrainGbdtResult;
  opts.onStage?.("boost");
  for (;;) {
    const r = boosting.next();
    if (r.done) {
      res = r.value;
      break;
    }
    yield { phase: "finetune", iteration: r.value.iteration, maxRounds: p.max_rounds, trainLoss: r.value.trainLoss, valLoss: r.value.valLoss };
  }

  const evalRows = val.length > 0 ? val : train;
  // training kept the raw scores of these rows: of the validation rows when there are some, else
  // of the training rows, whose every round is then kept (no early stopping without validation)
  const raw = val.length > 0 ? res.valRaw : res.trainRaw;
  if (!raw) throw new Error("boosting returned no raw scores for the evaluation rows");
  const yEval = Float64Array.from(evalRows, (r) => lab.y[r]);
  const metrics = evaluationMetrics(res.model, Float64Array.from(raw), yEval);
  return {
    model: res.model,
    featurizer,
    representation: prepared.representation,
    task: lab.task,
    classes: lab.classes,
    metrics,
    validation: {
      method: prepared.method,
      trainRows: train.length,
      valRows: val.length,
      droppedRows: prepared.droppedRows,
      metricsOn: val.length > 0 ? "validation" : "train",
    },
    history: res.history,
    stopReason: res.stopReason,
    rounds: res.rounds,
    search: null,
  };
}

/** The task's metrics of raw scores against the labels. */
export function evaluationMetrics(model: GbdtModel, raw: Float64Array, y: Float64Array): Record<string, MetricValue> {
  const pred = transformScores(model.objective, raw, model.numOutputs);
  return model.objective === "regression"
    ? { ...regressionMetrics(y, pred) }
    : { ...classificationMetrics(y, pred, model.objective === "binary" ? 2 : model.numOutputs) };
}

export { DEFAULT_PREDICTION_PARAMS, MAX_TIME_BUDGET_S, type PredictionParams } from "./params";
