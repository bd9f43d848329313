/**
 * A non-prediction model's run (anomaly, embedding, clustering, factors, search, causal): the shared
 * representation is built when the dataset version has none yet — the `ssl` phase, after a check
 * that there is something to model —, then the type's own fit runs with no phase (the interface:
 * null for unsupervised types, which have no training loop) and no metric history; steps and
 * progress still move. A type that trains an encoder of its own (embedding with other dimensions)
 * reports that part as `ssl` too.
 */
import { SUMMARY_MAX_BYTES } from "../core/limits";
import { SERVICE_RUNTIME_VERSION } from "../core/version";
import { UNSUPERVISED_FORMAT, type UnsupervisedArtifact } from "../inference/artifact";
import { MlInputError } from "../ml/errors";
import { buildFeaturizer } from "../ml/featurize";
import type { UnsupervisedModel } from "../ml/fit/contract";
import { type Frame, findColumn } from "../ml/frame";
import { appendMetadata } from "../ml/onnx/onnx-proto";
import { buildRepresentationSteps, plannedSslSteps, type Representation } from "../ml/representation/representation";
import type { UnsupervisedModelType } from "../ml/unsupervised/model";
import type { ArtifactFile } from "../storage/keys";
import { boundedJson } from "./bounded-json";
import type { RunContext, TrainingOutput } from "./run-context";
import { UNSUPERVISED_TRAINERS } from "./unsupervised-trainers";

/** Seed of the shared representation: fixed, never a model's (every model on the data shares it). */
const REPRESENTATION_SEED = 0;

export async function runUnsupervised(ctx: RunContext, modelType: UnsupervisedModelType): Promise<TrainingOutput> {
  const { task, io, reporter, now } = ctx;
  const frame = ctx.takeFrame();
  const trainer = UNSUPERVISED_TRAINERS[modelType];
  const inputColumns = task.input_columns ?? null;
  checkData(ctx, frame, inputColumns);

  let rep = ctx.representation;
  const reused = rep !== null;
  const sslSteps = reused ? 0 : plannedSslSteps(frame);
  let offset = 0;
  if (!rep) {
    const build = buildRepresentationSteps(frame, { seed: REPRESENTATION_SEED });
    for (let r = build.next(); ; r = build.next()) {
      if (r.done) {
        rep = r.value;
        break;
      }
      await reporter.step({ step: r.value.step, total: sslSteps + 1, phase: "ssl", point: null });
    }
    await reporter.flush();
    await io.saveRepresentation(JSON.stringify(rep));
    offset = sslSteps;
  }
  const tSsl = now();

  const steps = trainer(frame, { representation: rep as Representation, inputColumns, labelColumn: task.label_column, params: task.params });
  let model: UnsupervisedModel;
  let phase: "ssl" | "fit" | null = null;
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
    await reporter.step({ step: offset + s.step, total: offset + s.totalSteps, phase: s.phase === "ssl" ? "ssl" : null, point: null });
  }
  // the phase is null once no encoder is training (also when the fit had no steps of its own)
  await reporter.step({ step: offset + phaseSteps, total: offset + phaseSteps, phase: null, point: null });
  await reporter.flush();
  const tFit = now();

  const artifact: UnsupervisedArtifact = {
    format: UNSUPERVISED_FORMAT,
    model_type: modelType,
    featurizer: model.featurizer,
    head: model.head,
    onnx: { input: "features", num_features: model.featurizer.features.length },
    files: (model.files ?? []).map((f) => f.name),
    service_runtime_version: SERVICE_RUNTIME_VERSION,
  };
  const artifactJson = JSON.stringify(artifact);
  // As for prediction models, the graph carries its featurizer file: a downloaded model is whole.
  await io.saveArtifact("model.onnx", appendMetadata(model.onnx, { featurizer: artifactJson }));
  for (const f of model.files ?? []) await io.saveArtifact(f.name as ArtifactFile, f.bytes);
  await io.saveArtifact("summary.json", new TextEncoder().encode(JSON.stringify(model.summary)));
  await io.saveArtifact("featurizer.json", new TextEncoder().encode(artifactJson));
  const tEnd = now();
  const whole = "the whole summary is the version's artifact ?part=summary";
  return {
    ...boundedJson(model.output, SUMMARY_MAX_BYTES, whole),
    model_type: modelType,
    metrics: model.metrics,
    representation: reused ? "reused" : "built",
    features: model.featurizer.features.length,
    seconds: ctx.seconds({ ssl: reused ? ctx.loadedAt : tSsl, fit: tFit, end: tEnd }),
    ssl_steps: sslSteps,
    rows: frame.rowCount,
    summary: boundedJson(model.summary, SUMMARY_MAX_BYTES, whole),
  };
}

/** What only the data shows, checked before the ssl phase is spent on it. */
function checkData(ctx: RunContext, frame: Frame, inputColumns: string[] | null): void {
  if (frame.rowCount < 2)
    throw new MlInputError(
      `the dataset has ${frame.rowCount} row${frame.rowCount === 1 ? "" : "s"}; a ${ctx.task.model_type} model needs at least 2`,
    );
  if (inputColumns) {
    const unknown = inputColumns.filter((c) => !findColumn(frame, c));
    if (unknown.length) throw new MlInputError(`input columns not found: ${unknown.join(", ")}`);
  }
  const featurizer = buildFeaturizer(frame, { labelColumn: ctx.task.label_column, inputColumns: inputColumns ?? undefined });
  if (featurizer.features.length === 0) {
    const why = featurizer.columns.map((c) => `${c.name}: ${c.reason ?? "unused"}`);
    throw new MlInputError(`no usable feature columns${why.length ? ` (${why.join("; ")})` : ""}`);
  }
}
