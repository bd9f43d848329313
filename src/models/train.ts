import { eq } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { Conflict, InvalidInput } from "../core/errors";
import { fieldIssuesFromZod } from "../core/field-issues";
import { SERVICE_RUNTIME_VERSION } from "../core/version";
import { findDataset, findVersion, type VersionRow } from "../datasets/records";
import type { Db } from "../db/client";
import { latestReadyOrCurrent } from "../db/dataset-versions";
import { deleteModelVersion, versionsOfModel } from "../db/model-versions";
import { datasets, models } from "../db/schema";
import { createJob, type JobDeps } from "../jobs/service";
import type { ColumnProfile } from "../ml/profile";
import { checkCausalColumns } from "./causal-check";
import { checkPredictionColumns } from "./label-check";
import { PARAMS_BY_TYPE } from "./params";
import { addVersion, configOf, createModel, findModel, type ModelConfig, type ModelRow } from "./records";
import type { ModelType } from "./types";
import { checkUnsupervisedColumns } from "./unsupervised-check";

/** Exactly one of the two names the data to train on. */
export interface TrainingData {
  dataset_id?: string;
  dataset_version_id?: string;
}

/** A new model: what POST /models/train takes. */
export interface TrainRequest extends TrainingData {
  model_name: string;
  model_type: ModelType;
  label_column?: string;
  input_columns?: string[];
  description?: string;
  params?: Record<string, unknown>;
}

/** The response of train and retrain. */
export interface TrainingStarted {
  model: { id: string; version_id: string; version_number: number };
  job_id: string;
  status: string;
  service_runtime_version: string;
}

/** POST /models/train: a new model, its first version and the training job. */
export async function startTraining(deps: JobDeps, principal: Principal, body: TrainRequest): Promise<TrainingStarted> {
  const version = await resolveTrainingData(deps.db, principal, body);
  const params = parseParams(body.model_type, body.params ?? {});
  const config: ModelConfig = {
    model_type: body.model_type,
    // Only prediction and causal (its outcome) models have a label; the others ignore one given.
    label_column: body.model_type === "prediction" || body.model_type === "causal" ? (body.label_column ?? null) : null,
    input_columns: body.input_columns ?? null,
    params,
  };
  checkColumns(version, config);
  const model = await createModel(deps.db, principal, {
    name: body.model_name,
    description: body.description ?? null,
    modelType: body.model_type,
    labelColumn: config.label_column,
  });
  return orDeleteModel(deps.db, model, () => queueVersion(deps, principal, model, version, config));
}

/** POST /models/{id}/retrain: a new version with the configuration of the previous one. */
export async function startRetraining(deps: JobDeps, principal: Principal, modelId: string, body: TrainingData): Promise<TrainingStarted> {
  const model = await findModel(deps.db, principal, modelId);
  const [previous] = await versionsOfModel(deps.db, model.id);
  if (!previous) throw new Conflict("The model has no version to inherit its configuration from.");
  const version = await resolveTrainingData(deps.db, principal, body);
  const config = configOf(previous);
  checkColumns(version, config);
  return queueVersion(deps, principal, model, version, config);
}

/** Exactly one of dataset_id / dataset_version_id, resolved to a ready version of this organization. */
export async function resolveTrainingData(db: Db, principal: Principal, body: TrainingData): Promise<VersionRow> {
  const given = [body.dataset_id, body.dataset_version_id].filter((x) => x !== undefined).length;
  if (given !== 1) {
    throw InvalidInput.field([], "Give exactly one of dataset_id or dataset_version_id", {
      dataset_id: body.dataset_id ?? null,
      dataset_version_id: body.dataset_version_id ?? null,
    });
  }
  let version: VersionRow | undefined;
  if (body.dataset_version_id) {
    version = await findVersion(db, principal, body.dataset_version_id).catch(() => {
      throw InvalidInput.field(["dataset_version_id"], "Dataset version not found", body.dataset_version_id);
    });
    if (version.archived) throw new Conflict(`Dataset version ${version.version} is archived; use another version.`);
  } else {
    const d = await findDataset(db, principal, body.dataset_id!).catch(() => {
      throw InvalidInput.field(["dataset_id"], "Dataset not found", body.dataset_id);
    });
    version = await latestReadyOrCurrent(db, d.id);
    if (!version) throw new Conflict("The dataset has no version to train on.");
  }
  if (version.status !== "ready" || !version.frameKey) {
    throw new Conflict(
      `Dataset version ${version.version} is ${version.status}, not ready: wait for its ingestion job to succeed${version.status === "failed" ? " (it failed; upload the data again)" : ""}.`,
    );
  }
  return version;
}

/** The params of the model type, validated; their issues are named under `params`. */
function parseParams(type: ModelType, raw: Record<string, unknown>): Record<string, unknown> {
  const schema = PARAMS_BY_TYPE[type];
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  // An unknown key is most often a typo: say which keys this model type takes.
  const known = Object.keys((schema as unknown as { shape: Record<string, unknown> }).shape).join(", ");
  const issues = fieldIssuesFromZod(r.error, raw, ["params"]).map((i) =>
    i.type === "extra_forbidden"
      ? { ...i, message: `Unknown parameter for a ${type} model; its parameters are: ${known}`, ctx: { expected: known } }
      : i,
  );
  throw new InvalidInput(issues);
}

function checkColumns(version: VersionRow, config: ModelConfig): void {
  const profile = JSON.parse(version.columnsJson ?? "[]") as ColumnProfile[];
  if (config.model_type === "prediction") {
    checkPredictionColumns(profile, version.rowCount ?? 0, {
      label_column: config.label_column ?? undefined,
      input_columns: config.input_columns ?? undefined,
      task: (config.params as { task?: "classification" | "regression" }).task,
    });
  } else if (config.model_type === "causal") {
    checkCausalColumns(profile, version.rowCount ?? 0, {
      label_column: config.label_column ?? undefined,
      input_columns: config.input_columns ?? undefined,
      params: config.params,
    });
  } else {
    checkUnsupervisedColumns(profile, version.rowCount ?? 0, { input_columns: config.input_columns ?? undefined, params: config.params });
  }
}

async function queueVersion(
  deps: JobDeps,
  principal: Principal,
  model: ModelRow,
  version: VersionRow,
  config: ModelConfig,
): Promise<TrainingStarted> {
  const mv = await addVersion(deps.db, model, { datasetId: version.datasetId, datasetVersionId: version.id, config });
  const [dataset] = await deps.db.select({ name: datasets.name }).from(datasets).where(eq(datasets.id, version.datasetId)).limit(1);
  const job = await orDeleteVersion(deps.db, mv.id, () =>
    createJob(deps, principal, {
      type: "train",
      modelType: model.modelType,
      modelId: model.id,
      modelVersionId: mv.id,
      datasetId: version.datasetId,
      datasetVersionId: version.id,
      datasetName: dataset?.name ?? null,
      input: { model_name: model.name, version_number: mv.version, ...config },
    }),
  );
  return {
    model: { id: model.id, version_id: mv.id, version_number: mv.version },
    job_id: job.id,
    status: job.status,
    service_runtime_version: SERVICE_RUNTIME_VERSION,
  };
}

async function orDeleteVersion<T>(db: Db, versionId: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (e) {
    await deleteModelVersion(db, versionId).catch(() => undefined);
    throw e;
  }
}

/** A model just created is removed again when its first version or job could not be made. */
async function orDeleteModel<T>(db: Db, model: ModelRow, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (e) {
    await db
      .delete(models)
      .where(eq(models.id, model.id))
      .catch(() => undefined);
    throw e;
  }
}
