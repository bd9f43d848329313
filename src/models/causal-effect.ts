/**
 * POST /models/{id}/estimate-causal-effect: a causal model's average effect over a set of rows,
 * optionally per group (the engine's ../ml/causal/estimate does the arithmetic).
 *
 * - No data named: the training rows, from the cross-fitted pseudo-outcomes stored with the
 *   version (method `aipw_cross_fitted`); the same when the named dataset version is the one the
 *   model was trained on.
 * - Other data with the treatment and the outcome: AIPW from the served models (`aipw`).
 * - Other data without them: the mean predicted effect, without an interval
 *   (`mean_predicted_effect`).
 */
import type { Principal } from "../auth/principal";
import { Conflict, InvalidInput } from "../core/errors";
import { DIRECT_UPLOAD_MAX_BYTES, EFFECT_MAX_GROUPS, MAX_FRAME_CELLS } from "../core/limits";
import { findVersion } from "../datasets/records";
import { frameFitsWorker, loadFrame } from "../datasets/rows";
import { uploadedFileFormat } from "../datasets/upload-file";
import type { Db } from "../db/client";
import { graphOutputs, loadArtifact } from "../inference/run-model";
import { workerModelRuntime } from "../inference/worker-runtime";
import { type EffectSummary, groupRows, pseudoFromPredictions, readArms, readOutcome, summarizeEffect } from "../ml/causal/estimate";
import { MlInputError } from "../ml/errors";
import { type Frame, findColumn } from "../ml/frame";
import type { UnsupervisedArtifact } from "../model-types/artifact";
import { ARTIFACT_FILES } from "../storage/keys";
import { chooseVersion, inferenceFileTooLarge, readInput } from "./infer";
import { findModelWithVersions, type ModelVersionRow } from "./records";
import { resolveTrainingData } from "./train";

export interface EffectRequest {
  dataset_id?: string;
  dataset_version_id?: string;
  /** A CSV or Parquet file (multipart requests). */
  file?: File;
  group_by?: string;
  /** Default: the latest ready version. */
  model_version_id?: string;
}

type EffectMethod = "aipw_cross_fitted" | "aipw" | "mean_predicted_effect";

interface EffectGroup extends EffectSummary {
  value: string | null;
}

export interface EffectAnswer extends EffectSummary {
  model_id: string;
  model_version_id: string;
  method: EffectMethod;
  method_description: string;
  data: {
    source: "training_data" | "dataset_version" | "file";
    dataset_id: string | null;
    dataset_version_id: string | null;
    filename: string | null;
  };
  treatment_column: string;
  outcome_column: string;
  control_value: string;
  treated_arms: string[];
  effect_scale: string;
  confidence: number | null;
  group_by: string | null;
  groups: EffectGroup[] | null;
  warnings: string[];
}

/** What the trainer put in a causal model's head (../ml/causal/model). */
interface CausalHead {
  treatment_column: string;
  outcome_column: string;
  outcome_classes: [string, string] | null;
  control_value: string;
  treated_arms: string[];
  propensity_clip: [number, number];
  effect_scale: string;
  n_treated: number;
  n_control: number;
}

const DESCRIPTIONS: Record<EffectMethod, string> = {
  aipw_cross_fitted:
    "Cross-fitted AIPW (doubly robust) over the training rows: the mean of the pseudo-outcomes whose nuisance models never saw their row; 95% interval from the influence function.",
  aipw: "AIPW (doubly robust) over these rows with the model's outcome and propensity models, which were fit on the training data; 95% interval from the influence function. Valid when these rows are not the training rows (for those, send no data: the cross-fitted estimate).",
  mean_predicted_effect:
    "Mean of the model's predicted per-row effects (CATE): the data lacks the treatment or the outcome, so the effect cannot be estimated from outcomes; no interval is given, because the spread of predictions over rows is not the uncertainty of the estimate.",
};

interface Rows {
  frame: Frame | null;
  values: Float64Array;
  arm: Int32Array | null;
  method: EffectMethod;
  warnings: string[];
  /** Treated/control counts known without the arm per row (the training data, deleted since). */
  counts?: { n_treated: number; n_control: number };
}

export async function estimateCausalEffect(
  deps: { db: Db; bucket: R2Bucket },
  principal: Principal,
  modelId: string,
  req: EffectRequest,
): Promise<EffectAnswer> {
  const { model, versions } = await findModelWithVersions(deps.db, principal, modelId);
  if (model.modelType !== "causal") {
    throw InvalidInput.pathParam("id", `Model "${model.name}" is a ${model.modelType} model; effects are estimated by causal models only`, model.id);
  }
  if (req.file && (req.dataset_id || req.dataset_version_id)) {
    throw InvalidInput.field([], "Send either a file or a dataset_id / dataset_version_id, not both", {
      dataset_id: req.dataset_id ?? null,
      file: req.file.name,
    });
  }
  const version = chooseVersion(versions, req.model_version_id);
  const runtime = workerModelRuntime(deps.bucket);
  const artifact = (await loadArtifact(runtime, version)) as UnsupervisedArtifact;
  const head = artifact.head as unknown as CausalHead;

  let data: EffectAnswer["data"];
  let rows: Rows;
  if (req.file) {
    data = { source: "file", dataset_id: null, dataset_version_id: null, filename: req.file.name };
    const frame = await readFile(req.file);
    requireFeatures(artifact, frame, ["file"]);
    rows = fromNewData(head, frame, await graphOutputs(runtime, version, artifact, frame));
  } else {
    const dv = req.dataset_id || req.dataset_version_id ? await resolveTrainingData(deps.db, principal, req) : null;
    if (!dv || dv.id === version.datasetVersionId) {
      data = {
        source: dv ? "dataset_version" : "training_data",
        dataset_id: version.datasetId,
        dataset_version_id: version.datasetVersionId,
        filename: null,
      };
      rows = await fromTrainingData(deps, principal, version, head, req.group_by !== undefined);
    } else {
      data = { source: "dataset_version", dataset_id: dv.datasetId, dataset_version_id: dv.id, filename: null };
      const frame = await loadFrame(deps.bucket, dv);
      requireFeatures(artifact, frame, [req.dataset_version_id ? "dataset_version_id" : "dataset_id"]);
      rows = fromNewData(head, frame, await graphOutputs(runtime, version, artifact, frame));
    }
  }
  const withInterval = rows.method !== "mean_predicted_effect";
  const overall = summarizeEffect(rows.values, head.treated_arms, rows.arm, null, withInterval);
  if (rows.counts) Object.assign(overall, rows.counts);
  return {
    model_id: model.id,
    model_version_id: version.id,
    method: rows.method,
    method_description: DESCRIPTIONS[rows.method],
    data,
    treatment_column: head.treatment_column,
    outcome_column: head.outcome_column,
    control_value: head.control_value,
    treated_arms: head.treated_arms,
    effect_scale: head.effect_scale,
    confidence: withInterval ? 0.95 : null,
    ...overall,
    group_by: req.group_by ?? null,
    groups: req.group_by === undefined ? null : groupsOf(rows, head, req.group_by, withInterval),
    warnings: rows.warnings,
  };
}

/**
 * An average over rows that lack one of the model's input columns would silently average
 * predictions made without it, so the data must have them all (inference is lenient, this is not).
 */
function requireFeatures(a: UnsupervisedArtifact, frame: Frame, loc: string[]): void {
  const needed = [...new Set(a.featurizer.features.map((f) => f.source))];
  const absent = needed.filter((c) => !findColumn(frame, c));
  if (absent.length) {
    throw InvalidInput.field(
      loc,
      `The data lacks the model's input column(s) ${absent.map((c) => `"${c}"`).join(", ")}; it needs: ${needed.join(", ")}`,
      absent,
    );
  }
}

async function readFile(file: File): Promise<Frame> {
  if (file.size > DIRECT_UPLOAD_MAX_BYTES) throw inferenceFileTooLarge();
  return readInput(new Uint8Array(await file.arrayBuffer()), await uploadedFileFormat(file), file.name);
}

/** The training rows: the stored cross-fitted pseudo-outcomes, and the frame for arms and groups. */
async function fromTrainingData(
  deps: { db: Db; bucket: R2Bucket },
  principal: Principal,
  version: ModelVersionRow,
  head: CausalHead,
  needFrame: boolean,
): Promise<Rows> {
  const obj = await deps.bucket.get(version.artifactKey + ARTIFACT_FILES.pseudo_outcomes);
  if (!obj) throw new Conflict(`The pseudo-outcomes of model version ${version.version} are missing; retrain the model.`);
  if (obj.size > MAX_FRAME_CELLS * 8) {
    // one double per training row and arm: a model the trainer fit on a large table
    await obj.body.cancel();
    throw new Conflict(
      `Model version ${version.version} was trained on more rows than its effect over them can be computed here (${(obj.size / 8).toLocaleString("en-US")} row and arm values, at most ${MAX_FRAME_CELLS.toLocaleString("en-US")}): send rows as a file or name a smaller dataset.`,
    );
  }
  const values = new Float64Array(await obj.arrayBuffer());
  const dv = await findVersion(deps.db, principal, version.datasetVersionId).catch(() => null);
  // Without groups, a frame too large for the Worker is not needed: the counts of the head serve.
  const frame = dv?.frameKey && (needFrame || frameFitsWorker(dv)) ? await loadFrame(deps.bucket, dv) : null;
  if (!frame && needFrame) {
    throw new Conflict("The model's training data has been deleted, so it cannot be grouped; send the data as a file or name a dataset.");
  }
  if (frame && frame.rowCount * head.treated_arms.length !== values.length) {
    throw new Conflict(`The training data of model version ${version.version} no longer matches its pseudo-outcomes; retrain the model.`);
  }
  const arm = frame ? (readArms(frame, head.treatment_column, [head.control_value, ...head.treated_arms])?.index ?? null) : null;
  const counts = frame ? undefined : { n_treated: head.n_treated, n_control: head.n_control };
  return { frame, values, arm, method: "aipw_cross_fitted", warnings: [], counts };
}

/** Rows the model was not trained on: AIPW when they carry the treatment and the outcome, else the mean predicted effect. */
function fromNewData(head: CausalHead, frame: Frame, outs: Record<string, { data: Float64Array }>): Rows {
  const warnings: string[] = [];
  const arms = readArms(frame, head.treatment_column, [head.control_value, ...head.treated_arms]);
  const outcome = readOutcome(frame, head.outcome_column, head.outcome_classes);
  if (arms?.unmatched) warnings.push(`${arms.unmatched} row(s) have a treatment value the model was not trained on; they are left out`);
  if (outcome?.unmatched) warnings.push(`${outcome.unmatched} row(s) have an outcome the model cannot read; they are left out`);
  if (frame.rowCount === 0) throw InvalidInput.field(["file"], "The data has no rows", null);
  if (arms && outcome) {
    const values = pseudoFromPredictions(
      { muTreated: outs.outcome_if_treated.data, muControl: outs.outcome_if_control.data, propensity: outs.propensity.data },
      arms.index,
      outcome.y,
      head.propensity_clip,
    );
    if (values.some((v) => v === v)) return { frame, values, arm: arms.index, method: "aipw", warnings };
    warnings.push("no row has both a known treatment and an outcome");
  } else {
    const absent = [arms ? null : head.treatment_column, outcome ? null : head.outcome_column].filter((c) => c !== null);
    warnings.push(`the data has no column ${absent.map((c) => `"${c}"`).join(" or ")}: the answer is the mean predicted effect`);
  }
  return { frame, values: outs.effect.data, arm: arms?.index ?? null, method: "mean_predicted_effect", warnings };
}

function groupsOf(rows: Rows, head: CausalHead, column: string, withInterval: boolean): EffectGroup[] {
  const frame = rows.frame!;
  if (!findColumn(frame, column)) {
    const names = frame.columns.map((c) => c.name);
    throw InvalidInput.field(["group_by"], `Column "${column}" is not in the data; its columns are: ${names.join(", ")}`, column);
  }
  if (column === head.treatment_column) {
    throw InvalidInput.field(
      ["group_by"],
      `"${column}" is the treatment column: each of its groups holds one arm only; group by another column`,
      column,
    );
  }
  try {
    return groupRows(frame, column, EFFECT_MAX_GROUPS).map((g) => ({
      value: g.value,
      ...summarizeEffect(rows.values, head.treated_arms, rows.arm, g.rows, withInterval),
    }));
  } catch (e) {
    if (e instanceof MlInputError) throw InvalidInput.field(["group_by"], e.message, column);
    throw e;
  }
}
