import { eq } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { Conflict, InvalidInput } from "../core/errors";
import { SERVICE_RUNTIME_VERSION } from "../core/version";
import { findDataset, findVersion, type VersionRow } from "../datasets/records";
import type { Db } from "../db/client";
import { latestReadyOrCurrent } from "../db/dataset-versions";
import { deleteModelVersion, versionsOfModel } from "../db/model-versions";
import { datasets, models } from "../db/schema";
import { createJob, type JobDeps } from "../jobs/service";
import type { ColumnProfile } from "../ml/profile";
import type { ModelTypeModule } from "../model-types/contract";
import { type ModelType, modelTypes } from "../model-types/registry";
import { typeConfig } from "../model-types/train-config";
import { addVersion, configOf, createModel, findModel, type ModelConfig, type ModelRow } from "./records";

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
  const type = typeOf(body.model_type);
  const config = typeConfig(type, body) as ModelConfig;
  checkColumns(type, version, config);
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
  checkColumns(typeOf(config.model_type), version, config);
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

/** The module of a type the request schema (or a stored configuration) named. */
function typeOf(name: string): ModelTypeModule {
  const type = modelTypes.find(name);
  if (!type) throw new Conflict(`Models of type ${name} cannot be trained by this version of the service.`);
  return type;
}

function checkColumns(type: ModelTypeModule, version: VersionRow, config: ModelConfig): void {
  const profile = JSON.parse(version.columnsJson ?? "[]") as ColumnProfile[];
  type.request.check(profile, version.rowCount ?? 0, config);
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
