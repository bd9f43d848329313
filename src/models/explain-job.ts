/**
 * The `infer_explain` job: the parent inference job's rows read back from R2, explained with the
 * version's trees (gbdt.json: exact TreeSHAP per input column, the smallest one-column change that
 * flips the prediction, and a sentence; for causal models, of the row's estimated effect). The
 * rows land in the job's output as `explanations`.
 */
import { EXPLAIN_MAX_COLUMNS } from "../core/limits";
import type { Db } from "../db/client";
import { versionOfModel } from "../db/model-versions";
import type { PredictionArtifact } from "../inference/artifact";
import { loadArtifact } from "../inference/run-model";
import { workerModelRuntime } from "../inference/worker-runtime";
import { JobInputError } from "../jobs/errors";
import type { JobRecord } from "../jobs/types";
import type { JobControl, JobOutcome } from "../jobs/work";
import { type CausalExplainSpec, explainEffects } from "../ml/causal/explain";
import { type ColumnContribution, explainPrediction } from "../ml/explain/explain-prediction";
import type { GbdtModel } from "../ml/gbdt/model";
import { ARTIFACT_FILES } from "../storage/keys";
import { inferenceInput, rowsForIds } from "./inference-input";

type CausalHead = Omit<CausalExplainSpec, "featurizer">;

function explainSpec(a: PredictionArtifact) {
  return { featurizer: a.featurizer, task: a.task, classes: a.classes, labelColumn: a.label_column };
}

/** The largest EXPLAIN_MAX_COLUMNS contributions, the others summed into one entry (the sum still holds). */
function capped(list: ColumnContribution[]): ColumnContribution[] {
  if (list.length <= EXPLAIN_MAX_COLUMNS) return list;
  const rest = list.slice(EXPLAIN_MAX_COLUMNS - 1);
  const sum = rest.reduce((s, c) => s + c.contribution, 0);
  return [...list.slice(0, EXPLAIN_MAX_COLUMNS - 1), { column: `(${rest.length} other columns)`, value: null, contribution: sum }];
}

export async function runExplainJob(deps: { db: Db; bucket: R2Bucket }, job: JobRecord, control: JobControl): Promise<JobOutcome> {
  const version = job.modelId && job.modelVersionId ? await versionOfModel(deps.db, job.modelId, { id: job.modelVersionId }) : undefined;
  if (!version || version.status !== "ready" || !version.artifactKey) {
    throw new JobInputError("The model version that made these predictions is gone or no longer ready.");
  }
  const artifact = await loadArtifact(workerModelRuntime(deps.bucket), version);
  if (artifact.model_type !== "prediction" && artifact.model_type !== "causal") {
    throw new JobInputError(`Explanations exist for prediction and causal models; this is a ${artifact.model_type} model.`);
  }
  const trees = await deps.bucket.get(version.artifactKey + ARTIFACT_FILES.gbdt);
  if (!trees) {
    throw new JobInputError("This model version was trained before explanations were stored with models; retrain it to explain its predictions.");
  }
  const parsed = (await trees.json()) as GbdtModel | GbdtModel[];
  const frame = await inferenceInput(deps.bucket, job);
  if (!frame) throw new JobInputError("The input rows of the inference job are no longer stored; run the inference again and explain that job.");
  await control.report({ progress: 30 });
  const ids = (job.input?.ids ?? []) as (string | number)[];
  const { rows, missing } = rowsForIds(frame, ids);
  if (missing.length) throw new JobInputError(`Ids not in the inference job's rows: ${missing.slice(0, 20).join(", ")}`);
  const t0 = performance.now();
  const explained =
    artifact.model_type === "prediction"
      ? explainPrediction(parsed as GbdtModel, explainSpec(artifact), frame, rows)
      : explainEffects(parsed as GbdtModel[], { featurizer: artifact.featurizer, ...(artifact.head as unknown as CausalHead) }, frame, rows);
  const engineMs = Math.round(performance.now() - t0);
  return {
    output: {
      rows: rows.length,
      engine_ms: engineMs,
      explanations: explained.map((e, i) => ({ id: String(ids[i]), ...e, feature_contributions: capped(e.feature_contributions) })),
    },
    rowsProcessed: rows.length,
  };
}
