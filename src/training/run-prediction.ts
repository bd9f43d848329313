/**
 * A prediction model's run: the engine builds (or reuses) the shared representation — the `ssl`
 * phase, after checking the label so that a bad one fails first —, then boosts — the `finetune`
 * phase —, and the model is exported to ONNX with its featurizer file.
 */
import { SERVICE_RUNTIME_VERSION } from "../core/version";
import { FEATURIZER_FORMAT, type PredictionArtifact } from "../inference/artifact";
import { MlInputError } from "../ml/errors";
import type { Task } from "../ml/label";
import { exportGbdtToOnnx } from "../ml/onnx/export";
import {
  boostPredictionSteps,
  DEFAULT_PREDICTION_PARAMS,
  type PredictionModelResult,
  type PredictionParams,
  type PreparedPrediction,
  preparePredictionSteps,
  type TrainPredictionOptions,
} from "../ml/prediction/model";
import { plannedSslSteps } from "../ml/representation/representation";
import { finite } from "./reporter";
import type { RunContext, TrainingOutput } from "./run-context";

export async function runPrediction(ctx: RunContext): Promise<TrainingOutput> {
  const { task, io, reporter, now } = ctx;
  if (!task.label_column) throw new MlInputError("a prediction model needs a label column");
  const reused = ctx.representation !== null;
  const opts = trainOptions(ctx, task.label_column);
  const maxRounds = opts.params?.max_rounds ?? DEFAULT_PREDICTION_PARAMS.max_rounds;
  const { prepared, sslSteps, rows, tSsl } = await prepare(ctx, opts, maxRounds);
  const total = sslSteps + maxRounds;
  const boost = boostPredictionSteps(prepared, opts);
  let result: PredictionModelResult;
  for (let r = boost.next(); ; r = boost.next()) {
    if (r.done) {
      result = r.value;
      break;
    }
    const s = r.value;
    const step = sslSteps + s.iteration;
    await reporter.step({ step, total, phase: "finetune", point: { step, train_loss: finite(s.trainLoss), val_loss: finite(s.valLoss) } });
  }
  await reporter.flush();
  ctx.onStage("export");
  if (!reused) await io.saveRepresentation(JSON.stringify(result.representation));
  const tFit = now();

  const featurizerFile: PredictionArtifact = {
    format: FEATURIZER_FORMAT,
    model_type: "prediction",
    task: result.task,
    label_column: task.label_column,
    classes: result.classes,
    featurizer: result.featurizer,
    onnx: {
      input: "features",
      outputs: result.task === "regression" ? ["prediction"] : ["probabilities", "label", "raw_score"],
      num_features: result.model.numFeatures,
    },
    service_runtime_version: SERVICE_RUNTIME_VERSION,
  };
  const featurizerJson = JSON.stringify(featurizerFile);
  const onnx = exportGbdtToOnnx(result.model, {
    name: task.model_name,
    metadata: { featurizer: featurizerJson, label_column: task.label_column, task: result.task },
  });
  await io.saveArtifact("model.onnx", onnx);
  await io.saveArtifact("featurizer.json", new TextEncoder().encode(featurizerJson));
  await io.saveArtifact("gbdt.json", new TextEncoder().encode(JSON.stringify(result.model)));
  const tEnd = now();
  return {
    model_type: "prediction",
    task: result.task,
    classes: result.classes,
    metrics: Object.fromEntries(Object.entries(result.metrics).map(([k, v]) => [k, typeof v === "number" ? finite(v) : null])),
    validation: {
      method: result.validation.method,
      train_rows: result.validation.trainRows,
      val_rows: result.validation.valRows,
      dropped_rows: result.validation.droppedRows,
      metrics_on: result.validation.metricsOn,
    },
    rounds: result.rounds,
    rounds_run: result.history.length,
    // max_rounds | early_stopping | time_budget | cancelled
    stop_reason: result.stopReason,
    time_budget_s: opts.params?.time_budget_s ?? DEFAULT_PREDICTION_PARAMS.time_budget_s,
    representation: reused ? "reused" : "built",
    features: result.model.numFeatures,
    seconds: ctx.seconds({ ssl: tSsl, fit: tFit, end: tEnd }),
    ssl_steps: sslSteps,
    rows,
    summary: null,
  };
}

function trainOptions(ctx: RunContext, labelColumn: string): TrainPredictionOptions {
  const { task: taskParam, ...params } = ctx.task.params as PredictionParams & { task?: Task };
  return {
    labelColumn,
    inputColumns: ctx.task.input_columns ?? undefined,
    task: taskParam,
    params,
    representation: ctx.representation ?? undefined,
    // the boosting time budget (params.time_budget_s) runs on the job's clock
    now: ctx.now,
    onStage: ctx.onStage,
  };
}

/**
 * The run's first part, in a function of its own so that nothing of the table outlives it: the
 * frame taken from the context and the preparing generator are dropped on return, and boosting
 * runs on the binned rows alone (issue 13: the frame is most of a large job's memory). Without a
 * cached representation the engine builds it first (the ssl phase, its steps counted in
 * total_steps), after checking the inputs so that a bad label fails before that work.
 */
async function prepare(
  ctx: RunContext,
  opts: TrainPredictionOptions,
  maxRounds: number,
): Promise<{ prepared: PreparedPrediction; sslSteps: number; rows: number; tSsl: number }> {
  const frame = ctx.takeFrame();
  const sslSteps = ctx.representation ? 0 : plannedSslSteps(frame);
  const total = sslSteps + maxRounds;
  const steps = preparePredictionSteps(frame, opts);
  let tSsl = ctx.loadedAt;
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) return { prepared: r.value, sslSteps, rows: frame.rowCount, tSsl };
    const s = r.value;
    const point = s.valLoss !== null ? { step: s.step, train_loss: finite(s.trainLoss), val_loss: finite(s.valLoss) } : null;
    await ctx.reporter.step({ step: s.step, total, phase: "ssl", point });
    tSsl = ctx.now();
  }
}
