/**
 * One training run, the same in the Worker and in the trainer container: load the data, build
 * (or reuse) the dataset's shared representation — the `ssl` phase —, boost — the `finetune`
 * phase —, export the model to ONNX and store its artifacts. The engine trains step by step;
 * between steps this loop reports progress at most every `reportEveryMs`, which is also where a
 * cancel is noticed (report throws), so a canceled job stops within about that long.
 */

import { MAX_POINTS_PER_REPORT } from "../core/limits";
import { SERVICE_RUNTIME_VERSION } from "../core/version";
import type { MetricPoint } from "../jobs/types";
import { MlInputError } from "../ml/errors";
import type { Task } from "../ml/label";
import { exportGbdtToOnnx } from "../ml/onnx/export";
import { DEFAULT_PREDICTION_PARAMS, type PredictionModelResult, type PredictionParams, trainPredictionModelSteps } from "../ml/prediction";
import { parseRepresentation, plannedSslSteps, type Representation } from "../ml/representation";
import { FEATURIZER_FORMAT, type PredictionArtifact } from "../models/prediction-artifact";
import type { TrainingIO, TrainingReport, TrainingTask } from "./io";

export interface TrainingOutput {
  task: Task;
  classes: string[] | null;
  metrics: Record<string, number | null>;
  validation: Record<string, unknown>;
  rounds: number;
  stop_reason: string;
  /** Whether the shared representation was reused from an earlier model on this dataset version. */
  representation: "built" | "reused";
  features: number;
  seconds: { load: number; ssl: number; finetune: number; export: number; total: number };
  ssl_steps: number;
  rows: number;
}

export interface RunOptions {
  reportEveryMs?: number;
  now?: () => number;
}

export async function runTraining(task: TrainingTask, io: TrainingIO, opts: RunOptions = {}): Promise<TrainingOutput> {
  if (task.model_type !== "prediction") throw new MlInputError(`model type ${task.model_type} cannot be trained by this trainer`);
  if (!task.label_column) throw new MlInputError("a prediction model needs a label column");
  const now = opts.now ?? (() => performance.now());
  const t0 = now();
  const reporter = new Reporter(io, opts.reportEveryMs ?? 500, now);

  await io.report({ progress: 0, current_step: 0 });
  const frame = await io.loadFrame();
  const cached = await io.loadRepresentation();
  const representation: Representation | null = cached ? parseRepresentation(cached) : null;
  const tLoaded = now();

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
  });
  let result: PredictionModelResult;
  let tSsl = tLoaded;
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
  const tEnd = now();
  const sec = (a: number, b: number) => Math.round(b - a) / 1000;
  return {
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
    stop_reason: result.stopReason,
    representation: reused ? "reused" : "built",
    features: result.model.numFeatures,
    seconds: { load: sec(t0, tLoaded), ssl: sec(tLoaded, tSsl), finetune: sec(tSsl, tFit), export: sec(tFit, tEnd), total: sec(t0, tEnd) },
    ssl_steps: sslSteps,
    rows: frame.rowCount,
  };
}

/** Batches metric points and sends a report at most every `everyMs` (and on phase changes or a full batch). */
class Reporter {
  private points: MetricPoint[] = [];
  private last = -Infinity;
  private phase: "ssl" | "finetune" | null = null;
  private pending: TrainingReport | null = null;

  constructor(
    private io: TrainingIO,
    private everyMs: number,
    private now: () => number,
  ) {}

  async step(s: { step: number; total: number; phase: "ssl" | "finetune"; point: MetricPoint | null }): Promise<void> {
    if (s.point) this.points.push(s.point);
    this.pending = {
      current_step: s.step,
      total_steps: s.total,
      current_phase: s.phase,
      progress: Math.min(99, Math.floor((100 * s.step) / Math.max(1, s.total))),
    };
    const phaseChanged = s.phase !== this.phase;
    this.phase = s.phase;
    if (phaseChanged || this.points.length >= MAX_POINTS_PER_REPORT || this.now() - this.last >= this.everyMs) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.pending && this.points.length === 0) return;
    const r: TrainingReport = { ...this.pending };
    if (this.points.length) r.metrics = this.points;
    this.points = [];
    this.pending = null;
    this.last = this.now();
    await this.io.report(r);
  }
}

function finite(v: number | null | undefined): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

function withoutTask(p: PredictionParams & { task?: Task }): PredictionParams {
  const { task: _task, ...rest } = p;
  return rest;
}
