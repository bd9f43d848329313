/**
 * The prediction model, end to end: label handling, task inference, featurizer from the shared
 * representation, deterministic train/validation split, GBDT training with early stopping,
 * validation metrics. This is what the trainer service calls. With its rows (./data) and its
 * parameters (./params) it sits in ml/prediction, at ml's top layer beside the other model types
 * (ml/causal, ml/unsupervised): it builds on the GBDT and the shared representation, and nothing
 * in the engine imports it.
 */

import { MlInputError } from "../errors";
import { buildFeaturizer, type FeaturizerSpec } from "../featurize";
import type { Frame } from "../frame";
import { findColumn } from "../frame";
import type { FeatureBins } from "../gbdt/bins";
import type { GbdtModel } from "../gbdt/model";
import { transformScores } from "../gbdt/objective";
import { defaultLearningRate } from "../gbdt/schedule";
import { DEFAULT_GBDT_PARAMS, type GbdtParams, type IterationInfo, type StopReason, type TrainGbdtResult, trainGbdtBinnedSteps } from "../gbdt/train";
import { extractLabel, type Label, type Task } from "../label";
import { classificationMetrics, type MetricValue, regressionMetrics } from "../metrics";
import { buildRepresentationSteps, deriveModelFeatures, type Representation, type RepresentationStep } from "../representation/representation";
import { type BinnedRows, binRows, splitRows } from "./data";
import { type PredictionParams, predictionParams } from "./params";

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
}

/**
 * The stages of a prediction model's training, in order: the shared representation's profile,
 * featurizer and bins, its encoder's steps (only when it is built here), the model's features,
 * their bins, the boosting rounds.
 */
type PredictionStage = "representation" | "ssl" | "featurize" | "bin" | "boost";

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
    method: "stratified" | "random" | "explicit" | "none";
    trainRows: number;
    valRows: number;
    /** Rows dropped because their label is missing. */
    droppedRows: number;
    metricsOn: "validation" | "train";
  };
  history: IterationInfo[];
  stopReason: StopReason;
  rounds: number;
}

/** Seed of the shared representation's bin sample, independent of any model's seed. */
const REPRESENTATION_SEED = 0;

/** Below this many labelled rows nothing is held out. */
const MIN_ROWS_FOR_VALIDATION = 10;

/**
 * One step of a prediction model's training, as the training job reports it: the encoder steps
 * of the shared representation (`ssl`, only when it is built here) then the boosting rounds
 * (`finetune`). Losses: ssl = reconstruction MSE (../ssl/encoder), finetune = the objective's loss.
 * @internal exported for test/ml/prediction-steps.test.ts
 */
export type TrainingStep = RepresentationStep | FinetuneStep;

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

export function trainPredictionModel(frame: Frame, opts: TrainPredictionOptions): PredictionModelResult {
  const steps = trainPredictionModelSteps(frame, opts);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * Train a prediction model step by step and return the result: {@link preparePredictionSteps}
 * then {@link boostPredictionSteps}. Without `opts.representation` it first builds the shared
 * one, yielding its `ssl` steps (plannedSslSteps(frame) of them; the result's `representation` is
 * then the one to cache); then one `finetune` step per boosting round. Input errors
 * (MlInputError) are thrown by the first `next()`, before any ssl step. `opts.shouldStop` and
 * `opts.onIteration` are consulted after each finetune step (see trainGbdtSteps), so an async
 * caller can await a cancel check between steps and stop boosting through a flag read by
 * `shouldStop`; during the ssl phase they are not consulted (an encoder cut short must not be
 * cached): to cancel there, abandon the generator (`return()`).
 * @internal exported for its unit test (test/ml/prediction-steps.test.ts)
 */
export function* trainPredictionModelSteps(frame: Frame, opts: TrainPredictionOptions): Generator<TrainingStep, PredictionModelResult, void> {
  const prepared = yield* preparePredictionSteps(frame, opts);
  return yield* boostPredictionSteps(prepared, opts);
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
 * The first part of the training: checks, the shared representation (its `ssl` steps when built
 * here), the model's features, the split and the rows' bins (feature by feature: the float
 * matrix of the table is never built).
 */
export function* preparePredictionSteps(frame: Frame, opts: TrainPredictionOptions): Generator<RepresentationStep, PreparedPrediction, void> {
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
    // fail before spending the ssl phase (same features as deriveModelFeatures gives below)
    checkFeatures(buildFeaturizer(frame, { labelColumn: opts.labelColumn, inputColumns: opts.inputColumns }), opts.labelColumn);
    opts.onStage?.("representation");
    const build = buildRepresentationSteps(frame, { seed: REPRESENTATION_SEED });
    for (let first = true; ; first = false) {
      const r = build.next();
      if (r.done) {
        rep = r.value;
        break;
      }
      if (first) opts.onStage?.("ssl");
      yield r.value;
    }
  }
  opts.onStage?.("featurize");
  const { featurizer, bins } = deriveModelFeatures(rep, opts.labelColumn, opts.inputColumns);
  checkFeatures(featurizer, opts.labelColumn);

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
  const binned = binRows(featurizer, bins, frame, train, val);
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
  const objective = lab.task === "regression" ? "regression" : K === 2 ? "binary" : "multiclass";
  const explicitMinData = opts.params?.min_data_in_leaf !== undefined;
  const params: Partial<GbdtParams> & { objective: GbdtParams["objective"] } = {
    objective,
    numClasses: K,
    learningRate: opts.params?.learning_rate ?? defaultLearningRate(train.length),
    numLeaves: p.num_leaves,
    maxDepth: p.max_depth,
    maxRounds: p.max_rounds,
    earlyStoppingRounds: p.early_stopping_rounds,
    // small data: keep leaves possible (20 rows per leaf would forbid any split on 30 rows)
    minDataInLeaf: explicitMinData ? p.min_data_in_leaf : Math.min(p.min_data_in_leaf, Math.max(2, Math.floor(train.length / 20))),
    lambdaL2: p.l2,
    subsample: p.subsample,
    featureFraction: p.feature_fraction,
    seed: p.seed,
  };
  if (!explicitMinData) params.minDataPerGroup = Math.min(DEFAULT_GBDT_PARAMS.minDataPerGroup, params.minDataInLeaf!);
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
  const pred = transformScores(res.model.objective, Float64Array.from(raw), res.model.numOutputs);
  const yEval = Float64Array.from(evalRows, (r) => lab.y[r]);
  const metrics: Record<string, MetricValue> =
    lab.task === "regression" ? { ...regressionMetrics(yEval, pred) } : { ...classificationMetrics(yEval, pred, K) };
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
  };
}

function checkFeatures(featurizer: FeaturizerSpec, labelColumn: string): void {
  if (featurizer.features.length > 0) return;
  const why = featurizer.columns.filter((c) => c.name !== labelColumn).map((c) => `${c.name}: ${c.reason ?? "unused"}`);
  throw new MlInputError(`no usable feature columns${why.length ? ` (${why.join("; ")})` : ""}`);
}

export { DEFAULT_PREDICTION_PARAMS, MAX_TIME_BUDGET_S, type PredictionParams } from "./params";
