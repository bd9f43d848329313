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
import { DEFAULT_PREDICTION_PARAMS, type PredictionModelResult, type PredictionParams, trainPredictionModelSteps } from "../ml/prediction";
import { plannedSslSteps } from "../ml/representation";
import { finite } from "./reporter";
import type { RunContext, TrainingOutput } from "./run-context";

export async function runPrediction(ctx: RunContext): Promise<TrainingOutput> {
  const { task, io, frame, reporter, now } = ctx;
  if (!task.label_column) throw new MlInputError("a prediction model needs a label column");
  const representation = ctx.representation;
  const params = task.params as PredictionParams & { task?: Task };
  const maxRounds = params.max_rounds ?? DEFAULT_PREDICTION_PARAMS.max_rounds;
  const reused = representation !== null;
  // Without a cached representation the engine builds it first (the ssl phase, its steps counted
  // in total_steps), after checking the inputs so that a bad label fails before that work.
  const sslSteps = reused ? 0 : plannedSslSteps(frame);
  const total = sslSteps + maxRounds;
  const train = trainPredictionModelSteps(frame, {
    labelColumn: task.label_column,
    inputColumns: task.input_columns ?? undefined,
    task: params.task,
    params: withoutTask(params),
    representation: representation ?? undefined,
    // the boosting time budget (params.time_budget_s) runs on the job's clock
    now,
  });
  let result: PredictionModelResult;
  let tSsl = ctx.loadedAt;
  for (let r = train.next(); ; r = train.next()) {
    if (r.done) {
      result = r.value;
      break;
    }
    const s = r.value;
    if (s.phase === "ssl") {
      const point = s.valLoss !== null ? { step: s.step, train_loss: finite(s.trainLoss), val_loss: finite(s.valLoss) } : null;
      await reporter.step({ step: s.step, total, phase: "ssl", point });
      tSsl = now();
      continue;
    }
    const step = sslSteps + s.iteration;
    await reporter.step({ step, total, phase: "finetune", point: { step, train_loss: finite(s.trainLoss), val_loss: finite(s.valLoss) } });
  }
  await reporter.flush();
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
    time_budget_s: params.time_budget_s ?? DEFAULT_PREDICTION_PARAMS.time_budget_s,
    representation: reused ? "reused" : "built",
    features: result.model.numFeatures,
    seconds: ctx.seconds({ ssl: tSsl, fit: tFit, end: tEnd }),
    ssl_steps: sslSteps,
    rows: frame.rowCount,
    summary: null,
  };
}

function withoutTask(p: PredictionParams & { task?: Task }): PredictionParams {
  const { task: _task, ...rest } = p;
  return rest;
}
