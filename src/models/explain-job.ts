/**
 * The `infer_explain` job: the parent inference job's rows read back from R2 and explained by the
 * engine of the version's model type (./explain-engines: TreeSHAP per input column, a one-column
 * counterfactual and a sentence, for prediction, causal, anomaly and clustering models). The rows
 * land in the job's output as `explanations`.
 */
import { EXPLAIN_MAX_COLUMNS } from "../core/limits";
import type { Db } from "../db/client";
import { versionOfModel } from "../db/model-versions";
import { loadArtifact } from "../inference/run-model";
import { workerModelRuntime } from "../inference/worker-runtime";
import { JobInputError } from "../jobs/errors";
import type { JobRecord } from "../jobs/types";
import type { JobControl, JobOutcome } from "../jobs/work";
import type { ColumnContribution } from "../ml/explain/explain-prediction";
import { loadExplainer } from "./explain-engines";
import { inferenceInput, rowsForIds } from "./inference-input";

/** The largest EXPLAIN_MAX_COLUMNS contributions, the others summed into one entry (the sum still holds). */
function capped(list: ColumnContribution[]): ColumnContribution[] {
  if (list.length <= EXPLAIN_MAX_COLUMNS) return list;
  const rest = list.slice(EXPLAIN_MAX_COLUMNS - 1);
  const sum = rest.reduce((s, c) => s + c.contribution, 0);
  return [...list.slice(0, EXPLAIN_MAX_COLUMNS - 1), { column: `(${rest.length} other columns)`, value: null, contribution: sum }];
}

export async function runExplainJob(deps: { db: Db; bucket: R2Bucket }, job: JobRecord, control: JobControl): Promise<JobOutcome> {
  const version = job.modelId && job.modelVersionId ? await versionOfModel(deps.db, job.modelId, { id: job.modelVersionId }) : undefined;
  if (version?.status !== "ready" || !version.artifactKey) {
    throw new JobInputError("The model version that made these predictions is gone or no longer ready.");
  }
  const artifact = await loadArtifact(workerModelRuntime(deps.bucket), version);
  const explain = await loadExplainer(deps.bucket, version.artifactKey, artifact);
  const frame = await inferenceInput(deps, job);
  if (!frame) throw new JobInputError("The input rows of the inference job are no longer stored; run the inference again and explain that job.");
  await control.report({ progress: 30 });
  const ids = (job.input?.ids ?? []) as (string | number)[];
  const { rows, missing } = rowsForIds(frame, ids);
  if (missing.length) throw new JobInputError(`Ids not in the inference job's rows: ${missing.slice(0, 20).join(", ")}`);
  const t0 = performance.now();
  const explained = explain(frame, rows);
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
