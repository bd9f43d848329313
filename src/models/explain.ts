/**
 * POST /jobs/{id}/explain: an `infer_explain` job for chosen rows of a succeeded inference job
 * (sync or async), run by the queue (./explain-job). Both kinds of inference keep their input
 * file in R2 (`input.input_key`), which is where the rows are read from again; ids are checked
 * against that file now, so a job is only created for rows that exist.
 */
import type { Principal } from "../auth/principal";
import { Conflict, InvalidInput } from "../core/errors";
import { INFERENCE_FILES_RETENTION_DAYS } from "../core/limits";
import { jobObject } from "../jobs/job-object";
import { createJob, findJob, getJobDetail, type JobDeps, type JobWithRefs } from "../jobs/service";
import { isInferenceJob } from "../jobs/types";
import { modelTypes } from "../model-types/registry";
import { inferenceInput, rowsForIds } from "./inference-input";

/** Ids listed in a 422 for ids not in the job, at most. */
const LISTED_IDS = 20;

export async function startExplanation(
  deps: JobDeps & { bucket: R2Bucket },
  principal: Principal,
  rawJobId: string,
  ids: (string | number)[],
): Promise<JobWithRefs> {
  const row = await findJob(deps.db, principal, rawJobId);
  if (!isInferenceJob(row.type)) {
    throw new Conflict(`Only inference jobs can be explained; this job is a ${row.type} job.`);
  }
  const parent = row.status === "succeeded" ? row : ((await jobObject(deps.jobs, row.id).get()) ?? row);
  if (parent.status !== "succeeded") throw new Conflict(`The inference job is ${parent.status}; its rows can be explained once it has succeeded.`);
  // the other types answer 409 naming these
  const explainable = modelTypes.explainable;
  if (!explainable.includes(parent.modelType ?? "")) {
    throw new Conflict(`Explanations exist for ${explainable.join(", ")} models in this version; this job's model is a ${parent.modelType} model.`);
  }
  if (parent.output?.files_expired_at) {
    throw new Conflict(
      `The input rows of this inference job were deleted ${INFERENCE_FILES_RETENTION_DAYS} days after it finished; run the inference again and explain that job.`,
    );
  }
  const frame = await inferenceInput(deps, parent);
  if (!frame) throw new Conflict("The input rows of this inference job are no longer stored; run the inference again and explain that job.");
  const { missing } = rowsForIds(frame, ids);
  if (missing.length) {
    const listed = missing.slice(0, LISTED_IDS).map((x) => JSON.stringify(x));
    throw InvalidInput.field(
      ["ids"],
      `Ids not in the job's rows: ${listed.join(", ")}${missing.length > LISTED_IDS ? `, … (${missing.length} in all)` : ""}`,
      missing.slice(0, LISTED_IDS),
    );
  }
  const job = await createJob(deps, principal, {
    type: "infer_explain",
    modelType: parent.modelType,
    modelId: parent.modelId,
    modelVersionId: parent.modelVersionId,
    datasetId: parent.datasetId,
    datasetVersionId: parent.datasetVersionId,
    datasetName: parent.datasetName,
    inputFilename: parent.inputFilename,
    parentJobId: parent.id,
    // where the rows are (an input file or a dataset's frame), as the parent had it
    input: { ...parent.input, ids },
  });
  return getJobDetail(deps, principal, job.id);
}
