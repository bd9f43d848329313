/**
 * The training of every type that is an engine fit on the shared representation, without a
 * boosting loop of its own (anomaly, embedding, clustering, factors, search, causal): the
 * representation is built when the dataset version has none yet, after a check that there is
 * something to model, and its shared encoder trained (the `ssl` phase) when this training reads
 * it and it is not stored yet; then the engine's fit for the type runs with no phase (the
 * interface: null for types without a training loop) and no loss curve; steps still move. A fit
 * that trains an encoder of its own (an embedding with other dimensions) reports that part as
 * `ssl` too.
 */
import { MlInputError } from "../ml/errors";
import { buildFeaturizerSteps, type FeaturizerSpec, requireFeatures } from "../ml/featurize";
import type { FitStep, UnsupervisedModel, UnsupervisedTrainOptions } from "../ml/fit/contract";
import { type Frame, findColumn } from "../ml/frame";
import { appendMetadata } from "../ml/onnx/onnx-proto";
import {
  addEncoderSteps,
  buildRepresentationSteps,
  lacksEncoder,
  modelFeaturizer,
  type Representation,
  type RepresentationStep,
} from "../ml/representation/representation";
import type { ArtifactFile } from "../storage/keys";
import { UNSUPERVISED_FORMAT } from "./artifact";
import type { TrainEvent, TrainedModel, TrainInput, TrainingSpec } from "./contract";

/** The engine's fit for a type: steps, then the trained model. */
export type EngineFit = (frame: Frame, opts: UnsupervisedTrainOptions<Record<string, unknown>>) => Generator<FitStep, UnsupervisedModel, void>;

/** Seed of the shared representation: fixed, never a model's (every model on the data shares it). */
const REPRESENTATION_SEED = 0;

/**
 * `readsSharedEncoder`: whether the fit, with these params, reads the shared encoder (an embedding
 * at the default dimensions, a search that may choose the embedding space...). Only asked when no
 * input_columns are given: with a subset of the columns the fit trains an encoder of its own.
 */
export function fitOnRepresentation(fit: EngineFit, readsSharedEncoder?: (params: Record<string, unknown>) => boolean): TrainingSpec {
  const reads = (task: TrainInput["task"]) => !task.input_columns && readsSharedEncoder?.(task.params) === true;
  return { run: (input) => train(fit, input, reads(input.task)), readsSharedEncoder: reads };
}

function* train(engineFit: EngineFit, input: TrainInput, readsEncoder: boolean): Generator<TrainEvent, TrainedModel, void> {
  const frame = input.takeFrame();
  const inputColumns = input.task.input_columns ?? null;
  let rep = input.representation;
  checkShape(input.task.model_type, frame, inputColumns);
  // the table's featurizer: the stored representation's, or described here once and reused by the build
  const tableFeaturizer = rep ? rep.featurizer : yield* describeTable(frame);
  requireFeatures(modelFeaturizer(tableFeaturizer, input.task.label_column, inputColumns ?? undefined), input.task.label_column);

  if (!rep) {
    const build = buildRepresentationSteps(frame, { seed: REPRESENTATION_SEED, encoder: readsEncoder, featurizer: tableFeaturizer });
    rep = yield* storing(build, input.sslSteps);
  } else if (readsEncoder && lacksEncoder(rep)) rep = yield* storing(addEncoderSteps(frame, rep), input.sslSteps);
  let offset = input.sslSteps;

  const steps = engineFit(frame, {
    representation: rep,
    inputColumns,
    labelColumn: input.task.label_column,
    params: input.task.params,
    parallel: input.parallel,
  });
  let model: UnsupervisedModel;
  let phase: FitStep["phase"] | null = null;
  let phaseSteps = 0;
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) {
      model = r.value;
      break;
    }
    const s = r.value;
    if (s.phase !== phase) {
      offset += phaseSteps;
      phase = s.phase;
    }
    phaseSteps = s.totalSteps;
    yield { kind: "step", step: offset + s.step, total: offset + s.totalSteps, phase: s.phase === "ssl" ? "ssl" : null, point: null };
  }
  // the phase is null once no encoder is training (also when the fit had no steps of its own)
  yield { kind: "step", step: offset + phaseSteps, total: offset + phaseSteps, phase: null, point: null };
  return trainedModel(model);
}

/** The shared representation, built or completed here: its ssl steps, then handed to the runner to store. */
function* storing(build: Generator<RepresentationStep, Representation, void>, sslSteps: number): Generator<TrainEvent, Representation, void> {
  for (let r = build.next(); ; r = build.next()) {
    if (r.done) {
      yield { kind: "representation", representation: r.value };
      return r.value;
    }
    const s = r.value;
    yield s.phase === "column" ? { kind: "alive" } : { kind: "step", step: s.step, total: sslSteps + 1, phase: "ssl", point: null };
  }
}

function trainedModel(model: UnsupervisedModel): TrainedModel {
  const files = model.files ?? [];
  return {
    artifact: {
      format: UNSUPERVISED_FORMAT,
      featurizer: model.featurizer,
      head: model.head,
      onnx: { input: "features", num_features: model.featurizer.features.length },
      files: files.map((f) => f.name),
    },
    graph: (metadata) => appendMetadata(model.onnx, metadata),
    files: files.map((f) => ({ name: f.name as ArtifactFile, bytes: f.bytes })),
    metrics: model.metrics,
    output: model.output,
    summary: model.summary,
  };
}

/** The table's featurizer without a label (a pass over every column: alive between them). */
function* describeTable(frame: Frame): Generator<TrainEvent, FeaturizerSpec, void> {
  const described = buildFeaturizerSteps(frame, { labelColumn: null });
  for (let r = described.next(); ; r = described.next()) {
    if (r.done) return r.value;
    yield { kind: "alive" };
  }
}

/** What the frame's shape shows, checked before any pass over the rows. */
function checkShape(modelType: string, frame: Frame, inputColumns: string[] | null): void {
  if (frame.rowCount < 2)
    throw new MlInputError(`the dataset has ${frame.rowCount} row${frame.rowCount === 1 ? "" : "s"}; a ${modelType} model needs at least 2`);
  if (inputColumns) {
    const unknown = inputColumns.filter((c) => !findColumn(frame, c));
    if (unknown.length) throw new MlInputError(`input columns not found: ${unknown.join(", ")}`);
  }
}
