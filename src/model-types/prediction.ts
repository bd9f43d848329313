/**
 * The `prediction` model type: gradient-boosted trees predicting `label_column` (a class or a
 * number). Training builds (or reuses) the dataset's shared representation, without its encoder
 * (no `ssl` phase: a prediction model never reads it), after checking the label so that a bad one
 * fails first; then boosts — the `finetune` phase, with a loss point per round. The answer is the prediction, its probability and one `prob_<class>`
 * column per class; TreeSHAP and a one-column flip search explain a row (gbdt.json).
 */
import { z } from "zod";
import { InvalidInput } from "../core/errors";
import { MAX_CLASSES, SEARCH_AUTO_MAX_ROWS } from "../core/limits";
import { MlInputError } from "../ml/errors";
import { explainPrediction } from "../ml/explain/explain-prediction";
import type { Frame } from "../ml/frame";
import { alikeRows } from "../ml/gbdt/alike-rows";
import type { GbdtModel } from "../ml/gbdt/model";
import { inferTask, type Task } from "../ml/label";
import { exportGbdtToOnnx } from "../ml/onnx/export";
import {
  boostPredictionSteps,
  DEFAULT_PREDICTION_PARAMS,
  MAX_TIME_BUDGET_S,
  type PredictionModelResult,
  type PredictionParams,
  type PreparedPrediction,
  preparePredictionSteps,
  type TrainPredictionOptions,
} from "../ml/prediction/model";
import { MAX_TRIALS, predictionParams } from "../ml/prediction/params";
import type { SearchSummary } from "../ml/prediction/search/search";
import { autoSearchSkipped, labelledRows, searchApplies, searchPredictionSteps } from "../ml/prediction/search-model";
import type { ColumnProfile } from "../ml/profile";
import { ARTIFACT_FILES } from "../storage/keys";
import { columnTypesOf, outputColumn, round7 } from "./answer-columns";
import { FEATURIZER_FORMAT, type PredictionArtifact } from "./artifact";
import { checkInputColumnsExist, columnsByName, firstColumns } from "./columns-check";
import type { AnswerInput, Cell, ModelTypeModule, RequestColumns, ResultTable, TrainEvent, TrainedModel, TrainInput } from "./contract";
import { seed } from "./params-fields";

const params = z
  .object({
    task: z.enum(["classification", "regression"]).optional(),
    learning_rate: z.number().gt(0).lte(1).optional(),
    num_leaves: z.number().int().min(2).max(4096).optional(),
    max_depth: z.number().int().min(-1).max(64).optional(),
    max_rounds: z.number().int().min(1).max(10_000).optional(),
    early_stopping_rounds: z.number().int().min(0).max(10_000).optional(),
    min_data_in_leaf: z.number().int().min(1).optional(),
    l2: z.number().min(0).optional(),
    subsample: z.number().gt(0).lte(1).optional(),
    feature_fraction: z.number().gt(0).lte(1).optional(),
    seed,
    validation_fraction: z.number().min(0).lt(1).optional(),
    time_budget_s: z
      .number()
      .gt(0)
      .lte(MAX_TIME_BUDGET_S)
      .optional()
      .describe(
        `wall-clock seconds the model search (or boosting, with search off) may take (default 300, at most ${MAX_TIME_BUDGET_S}); the job output's stop_reason says time_budget when it ran out`,
      ),
    search: z
      .enum(["auto", "on", "off"])
      .optional()
      .describe(
        `auto (default): on tables of up to ${SEARCH_AUTO_MAX_ROWS} labelled rows, search the boosting parameters the request leaves free, within time_budget_s, and serve the best trial or a blend of the best; above, one model (the job output's search_skipped says so); on: search whatever the rows; off: one model with the given parameters`,
      ),
    max_trials: z.number().int().min(1).max(MAX_TRIALS).optional().describe("trials the model search runs at most (default 40)"),
  })
  .strict();

export const prediction: ModelTypeModule<PredictionArtifact, "prediction"> = {
  name: "prediction",
  params: { schema: params, defaults: DEFAULT_PREDICTION_PARAMS },
  request: {
    label: "target",
    check: (profile, rowCount, req) => checkPredictionColumns(profile, rowCount, req),
  },
  training: { run: trainPrediction, readsColumnByColumn: true },
  answer: {
    valuesPerRow: (a) => 2 + (a.classes?.length ?? 0),
    outputs: (a) => (a.task === "regression" ? ["prediction"] : ["probabilities", "label"]),
    chunked: false,
    async alikeRows(_a, file) {
      const model = await file(ARTIFACT_FILES.gbdt, (bytes) => JSON.parse(new TextDecoder().decode(bytes)) as GbdtModel);
      return model && ((matrix, numRows) => alikeRows(model, matrix, numRows));
    },
    table: predictionTable,
    columnTypes: (a, table) => columnTypesOf(table, a.task === "classification" ? { prediction: "string" } : {}),
  },
  explain: {
    async load(a, file) {
      const model = (await file(ARTIFACT_FILES.gbdt)) as GbdtModel | null;
      if (!model) return null;
      const spec = { featurizer: a.featurizer, task: a.task, classes: a.classes, labelColumn: a.label_column };
      return (frame: Frame, rows: number[]) => explainPrediction(model, spec, frame, rows);
    },
  },
  docs: {
    params: `Prediction: task (classification | regression), learning_rate, num_leaves, max_depth, max_rounds, early_stopping_rounds, min_data_in_leaf, l2, subsample, feature_fraction, seed, validation_fraction, time_budget_s (seconds the model search, or boosting with search off, may take: default 300, at most ${MAX_TIME_BUDGET_S}; the job output says stop_reason time_budget when it ran out), search (auto: a model search over the parameters left free up to ${SEARCH_AUTO_MAX_ROWS} labelled rows, one model above; the job output's search lists its trials, best and ensemble; on: a search at any size; off: one model), max_trials (default 40)`,
    columns:
      "Prediction: `prediction` (class name for classification, number for regression), `prediction_prob` (probability of the predicted class; null for regression) and, for classification, one `prob_<class>` column per class",
    metrics: "Prediction classification: `accuracy` (0 to 1), `log_loss`, `roc_auc`, `f1`; prediction regression: `r2`, `rmse`, `mae`",
    summary: null,
  },
};

// ── Request ─────────────────────────────────────────────────────────────────────────────────────

/**
 * What the column profile tells before training: the label exists, has values and at least two
 * of them, fits the task (classes within MAX_CLASSES, a number for regression); the input columns
 * exist and do not include it. The job checks again on the data itself (e.g. non-numeric values
 * in a regression label).
 */
function checkPredictionColumns(profile: ColumnProfile[], rowCount: number, req: RequestColumns): void {
  const label = req.label_column;
  if (!label) throw InvalidInput.field(["label_column"], "Field required: a prediction model needs the target column", null, "missing");
  const byName = columnsByName(profile);
  const col = byName.get(label);
  if (!col) {
    throw InvalidInput.field(["label_column"], `Column "${label}" is not in the dataset; its columns are: ${firstColumns(profile)}`, label);
  }
  if (col.missing_count >= rowCount) throw InvalidInput.field(["label_column"], `Label column "${label}" has no values (all missing)`, label);
  if (col.distinct_count < 2) {
    throw InvalidInput.field(["label_column"], `Label column "${label}" has a single distinct value; a prediction model needs at least two`, label);
  }
  const task = (req.params.task as Task | undefined) ?? inferTask({ kind: col.type, distinct: col.distinct_count, integers: col.integer_valued });
  if (task === "classification" && col.distinct_count > MAX_CLASSES) {
    const hint = col.type === "numeric" ? ' Set params.task to "regression" to predict it as a number.' : "";
    throw InvalidInput.field(
      ["label_column"],
      `Label column "${label}" has ${col.distinct_count} distinct values; classification allows at most ${MAX_CLASSES} classes.${hint}`,
      label,
    );
  }
  if (task === "regression" && !["numeric", "boolean", "datetime"].includes(col.type)) {
    throw InvalidInput.field(["params", "task"], `Regression needs a numeric label; column "${label}" is ${col.type}`, "regression");
  }
  checkInputColumnsExist(profile, req.input_columns, firstColumns);
  if (req.input_columns?.includes(label)) {
    throw InvalidInput.field(["input_columns"], `The label column "${label}" cannot also be an input column`, req.input_columns);
  }
}

// ── Training ────────────────────────────────────────────────────────────────────────────────────

function* trainPrediction(input: TrainInput): Generator<TrainEvent, TrainedModel, void> {
  const label = input.task.label_column;
  if (!label) throw new MlInputError("a prediction model needs a label column");
  const opts = trainOptions(input, label);
  const p = predictionParams(opts.params);
  // the shared representation's encoder is not trained for a prediction model: no ssl steps
  const prepared = yield* prepare(input, opts);
  if (!input.representation) yield { kind: "representation", representation: prepared.representation };
  const searched = searchApplies(prepared, opts);
  // the total is known once the rows are prepared (a search counts trials, one model rounds)
  const total = searched ? p.max_trials : p.max_rounds;
  const steps = searched ? searchPredictionSteps(prepared, opts) : boostPredictionSteps(prepared, opts);
  // the phase from the start: a search on other instances reports nothing until a trial ends
  yield { kind: "step", step: 0, total, phase: "finetune", point: null };
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) return trainedModel(input, label, r.value, p.time_budget_s, autoSearchSkipped(p.search, labelledRows(prepared)));
    const s = r.value;
    if (s.phase === "wait") yield { kind: "wait", until: s.until };
    else if (s.phase === "search") {
      // a trial done is a step; its point is the best score so far (the search's metrics history)
      const step = s.trial;
      const point = s.bestLoss !== null ? { step, train_loss: null, val_loss: finite(s.bestLoss) } : null;
      yield { kind: "step", step, total, phase: "finetune", point };
    } else {
      const step = s.iteration;
      yield { kind: "step", step, total, phase: "finetune", point: { step, train_loss: finite(s.trainLoss), val_loss: finite(s.valLoss) } };
    }
  }
}

/**
 * The first part, in a generator of its own so that nothing of the table outlives it: the frame
 * taken from the input and the preparing generator are dropped on return, and boosting runs on
 * the binned rows alone (on a large table the frame is most of the job's memory). Without a
 * stored representation the engine builds it first, after checking the inputs so that a bad label
 * fails before that work. A column profiled or binned is a point where the job stays alive.
 */
function* prepare(input: TrainInput, opts: TrainPredictionOptions): Generator<TrainEvent, PreparedPrediction, void> {
  const frame = ownFrame(input.takeFrame());
  try {
    const steps = preparePredictionSteps(frame, opts);
    for (let r = steps.next(); ; r = steps.next()) {
      if (r.done) return r.value;
      yield { kind: "alive" };
    }
  } finally {
    // Emptied, the run's own frame lets go of the table even while a finished generator's saved
    // registers still point at it (measured: the frame outlived this function into boosting).
    frame.columns.length = 0;
  }
}

/** A frame of the same columns whose column list is this run's own to empty (the loader's frame is left as it is). */
const ownFrame = (f: Frame): Frame => ({ rowCount: f.rowCount, columns: [...f.columns] });

function trainOptions(input: TrainInput, labelColumn: string): TrainPredictionOptions {
  const { task, ...rest } = input.task.params as PredictionParams & { task?: Task };
  return {
    labelColumn,
    inputColumns: input.task.input_columns ?? undefined,
    task,
    params: rest,
    representation: input.representation ?? undefined,
    // the boosting time budget (params.time_budget_s) runs on the job's clock
    now: () => input.now(),
    onStage: (stage) => input.onStage(stage),
    trialPool: input.trialPool,
    parallel: input.parallel,
  };
}

function trainedModel(
  input: TrainInput,
  labelColumn: string,
  result: PredictionModelResult,
  timeBudgetS: number,
  searchSkipped: string | null,
): TrainedModel {
  const v = result.validation;
  return {
    artifact: {
      format: FEATURIZER_FORMAT,
      task: result.task,
      label_column: labelColumn,
      classes: result.classes,
      featurizer: result.featurizer,
      onnx: {
        input: "features",
        outputs: result.task === "regression" ? ["prediction"] : ["probabilities", "label", "raw_score"],
        num_features: result.model.numFeatures,
      },
    },
    graph: (metadata) =>
      exportGbdtToOnnx(result.model, { name: input.task.model_name, metadata: { ...metadata, label_column: labelColumn, task: result.task } }),
    files: [{ name: ARTIFACT_FILES.gbdt, bytes: new TextEncoder().encode(JSON.stringify(result.model)) }],
    metrics: Object.fromEntries(Object.entries(result.metrics).map(([k, m]) => [k, typeof m === "number" ? finite(m) : null])),
    output: {
      task: result.task,
      classes: result.classes,
      validation: { method: v.method, train_rows: v.trainRows, val_rows: v.valRows, dropped_rows: v.droppedRows, metrics_on: v.metricsOn },
      rounds: result.rounds,
      rounds_run: result.search?.roundsRun ?? result.history.length,
      // max_rounds | early_stopping | time_budget | cancelled
      stop_reason: result.stopReason,
      time_budget_s: timeBudgetS,
      search: result.search ? searchOutput(result.search) : null,
      // why the default trained one model (a table above SEARCH_AUTO_MAX_ROWS); null otherwise
      search_skipped: searchSkipped,
    },
    summary: null,
  };
}

/** The job output's `search`: how the model was chosen. */
function searchOutput(s: SearchSummary) {
  return {
    method: s.method,
    instances: s.instances,
    stop_reason: s.stopReason,
    trials: s.trials.map((t) => ({
      trial: t.trial,
      params: t.params,
      score: t.loss,
      folds: t.folds,
      rounds: t.rounds,
      seconds: t.seconds,
      status: t.status,
    })),
    best: s.best,
    ensemble: s.ensemble,
  };
}

function finite(v: number | null | undefined): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

// ── Answer ──────────────────────────────────────────────────────────────────────────────────────

/** Regression: `prediction` and a null `prediction_prob`; classification: the class, its probability, `prob_<class>` each. */
function predictionTable(a: PredictionArtifact, { ids, outputs }: AnswerInput): ResultTable {
  const n = ids.length;
  const table: ResultTable = { id: ids };
  if (a.task === "regression") {
    table.prediction = outputColumn(outputs.prediction, n);
    // Regression has no class probability; the column is there (null) so every prediction
    // model answers the same columns.
    table.prediction_prob = new Array<Cell>(n).fill(null);
    return table;
  }
  const classes = a.classes ?? [];
  const C = classes.length;
  const probs = n === 0 ? new Float64Array(0) : outputs.probabilities.data;
  const labels = n === 0 ? new Float64Array(0) : outputs.label.data;
  table.prediction = Array.from(labels, (k) => classes[k] ?? String(k));
  table.prediction_prob = Array.from(labels, (k, i) => round7(probs[i * C + k]));
  classes.forEach((cls, k) => {
    table[`prob_${cls}`] = Array.from({ length: n }, (_, i) => round7(probs[i * C + k]));
  });
  return table;
}
