/**
 * One training run, the same in the trainer and (without a trainer) in the Worker: load the data
 * and the dataset's cached representation, run the model type's training (../model-types), store
 * its artifacts. The type trains step by step; between steps the runner reports progress at most
 * every `reportEveryMs`, which is also where a cancel is noticed (report throws), so a canceled
 * job stops within about that long.
 */
import { SUMMARY_MAX_BYTES } from "../core/limits";
import { SERVICE_RUNTIME_VERSION } from "../core/version";
import { MlInputError } from "../ml/errors";
import type { Frame } from "../ml/frame";
import type { ParallelExecutor } from "../ml/parallel";
import { lacksEncoder, parseRepresentation, plannedSslSteps, serializeRepresentation } from "../ml/representation/representation";
import type { TrainedModel } from "../model-types/contract";
import { type ModelTypeRegistry, modelTypes } from "../model-types/registry";
import { boundedJson } from "./bounded-json";
import { Reporter } from "./reporter";
import type { TrainingIO } from "./training-io";
import type { TrainingTask } from "./wire";

/** The training job's output (also its `output` in the API); type-specific fields come on top. */
export interface TrainingOutput {
  model_type: string;
  metrics: Record<string, number | null>;
  /**
   * Whether the shared representation was reused from an earlier model on this dataset version
   * with all this model reads ("reused"), or built here, or completed here with its encoder ("built").
   */
  representation: "built" | "reused";
  features: number;
  seconds: { load: number; ssl: number; fit: number; export: number; total: number };
  ssl_steps: number;
  rows: number;
  /** What the model version shows about itself (stored with it); null for types without one. */
  summary: Record<string, unknown> | null;
  [typeSpecific: string]: unknown;
}

/** The stages of a run: loading the data, the model type's own (a prediction model's: representation, ssl, featurize, bin, boost), storing the artifacts. */
export type RunStage = string;

export interface RunOptions {
  reportEveryMs?: number;
  now?: () => number;
  /** Called as each stage of the run starts (logs and the memory bench, bench/large/train-memory.ts). */
  onStage?: (stage: RunStage) => void;
  /** The model types it trains (a test adds one of its own). */
  registry?: ModelTypeRegistry;
  /** The trainer's threads (./gbdt-threads); absent: one thread. */
  parallel?: ParallelExecutor;
}

/**
 * Awaits work done elsewhere, reporting every few `everyMs` meanwhile: the report is the job's
 * heartbeat, and where a cancel is noticed (it throws).
 */
async function waitReporting(until: Promise<unknown>, io: TrainingIO, everyMs: number): Promise<void> {
  let done = false;
  const over = () => {
    done = true;
  };
  const finished = until.then(over, over);
  while (!done) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([finished, new Promise((r) => (timer = setTimeout(r, everyMs * 4)))]);
    clearTimeout(timer);
    if (!done) await io.report({});
  }
  await until;
}

/**
 * The frame, reporting while it loads. A function of its own so that no settled promise of the
 * frame stays in runTraining's scope: it would hold the table through the whole training
 * (measured: +1.2 GiB peak at 50 M rows), where `takeFrame` lets a type drop it.
 */
async function loadReporting(load: Promise<Frame>, io: TrainingIO, everyMs: number): Promise<Frame> {
  load.catch(() => {}); // a cancel seen while it loads ends the run; the load's own failure is not unhandled
  await waitReporting(load, io, everyMs);
  return load;
}

const WHOLE_SUMMARY = "the whole summary is the version's artifact ?part=summary";

export async function runTraining(task: TrainingTask, io: TrainingIO, opts: RunOptions = {}): Promise<TrainingOutput> {
  const type = (opts.registry ?? modelTypes).find(task.model_type);
  if (!type) throw new MlInputError(`model type ${task.model_type} cannot be trained by this trainer`);
  const now = opts.now ?? (() => performance.now());
  const onStage = opts.onStage ?? (() => {});
  const t0 = now();
  const reporter = new Reporter(io, opts.reportEveryMs ?? 500, now);
  onStage("load");
  await io.report({ progress: 0, current_step: 0 });
  // a type that reads the table column by column gets it with its columns widened as they are read;
  // a large table takes minutes to load, with the heartbeat sent meanwhile
  let frame: Frame | null = await loadReporting(io.loadFrame({ lazy: type.training.readsColumnByColumn === true }), io, opts.reportEveryMs ?? 500);
  const cached = await io.loadRepresentation();
  const representation = cached ? parseRepresentation(cached) : null;
  const tLoaded = now();
  const rows = frame.rowCount;
  // the shared encoder is trained here only for a type that reads it, when it is not stored yet
  const readsEncoder = type.training.readsSharedEncoder?.(task) === true;
  const sslSteps = readsEncoder && (!representation || lacksEncoder(representation)) ? plannedSslSteps(frame) : 0;
  const reused = representation !== null && sslSteps === 0;

  const run = type.training.run({
    task,
    takeFrame: () => {
      const f = frame;
      if (!f) throw new Error("the frame was already taken");
      // the runner keeps no reference to it, so a type can let go of it as soon as it is done with it
      frame = null;
      return f;
    },
    representation,
    sslSteps,
    now,
    onStage,
    trialPool: io.trialPool ?? null,
    parallel: opts.parallel,
  });
  // The ssl part of the run is the shared representation's build (or its encoder's): it ends with
  // the last ssl step before the type's own work (or with the build's hand-over); 0 s when the
  // stored representation had all the type reads.
  let tSsl = tLoaded;
  let building = !reused;
  let model: TrainedModel;
  for (let r = run.next(); ; r = run.next()) {
    if (r.done) {
      model = r.value;
      break;
    }
    const e = r.value;
    if (e.kind === "step") {
      await reporter.step(e);
      if (building && e.phase === "ssl") tSsl = now();
      else building = false;
    } else if (e.kind === "alive") {
      await reporter.alive();
    } else if (e.kind === "wait") {
      await reporter.flush();
      await waitReporting(e.until, io, opts.reportEveryMs ?? 500);
    } else {
      building = false;
      await reporter.flush();
      await io.saveRepresentation(serializeRepresentation(e.representation));
    }
  }
  await reporter.flush();
  onStage("export");
  const tFit = now();

  // The type's name and the runtime version are stamped here; format first, as files always had it.
  const { format, ...rest } = model.artifact;
  const artifactJson = JSON.stringify({ format, model_type: type.name, ...rest, service_runtime_version: SERVICE_RUNTIME_VERSION });
  // The graph carries its featurizer file: a downloaded model is whole.
  await io.saveArtifact("model.onnx", model.graph({ featurizer: artifactJson }));
  await io.saveArtifact("featurizer.json", new TextEncoder().encode(artifactJson));
  for (const f of model.files) await io.saveArtifact(f.name, f.bytes);
  if (model.summary) await io.saveArtifact("summary.json", new TextEncoder().encode(JSON.stringify(model.summary)));
  const tEnd = now();

  const sec = (a: number, b: number) => Math.round(b - a) / 1000;
  return {
    // a type with a summary has it whole in summary.json, where an output cut to size points
    ...(model.summary ? boundedJson(model.output, SUMMARY_MAX_BYTES, WHOLE_SUMMARY) : model.output),
    model_type: type.name,
    metrics: model.metrics,
    representation: reused ? "reused" : "built",
    features: model.artifact.onnx.num_features,
    seconds: { load: sec(t0, tLoaded), ssl: sec(tLoaded, tSsl), fit: sec(tSsl, tFit), export: sec(tFit, tEnd), total: sec(t0, tEnd) },
    ssl_steps: sslSteps,
    rows,
    summary: model.summary && boundedJson(model.summary, SUMMARY_MAX_BYTES, WHOLE_SUMMARY),
  };
}
