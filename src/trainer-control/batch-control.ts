/**
 * The control routes' side of an `infer_batch` job run by the trainer: what to apply (the model
 * version fixed at creation, its artifact files), to which rows (the dataset version's frame),
 * and where the results go (the job's result files, layout in ../storage/keys).
 */

import { artifactFile } from "../container/wire";
import { NotFound, TooLarge } from "../core/errors";
import { RESULT_PAGES_PER_WRITE } from "../core/limits";
import { OUTPUT_CONTENT_TYPES } from "../inference/output";
import type { JobRecord } from "../jobs/types";
import type { InferBatchInput } from "../models/infer-async";
import { batchVersion } from "../models/infer-batch-job";
import { RESULT_FILE_NAME, RESULT_PAGE_NAME, resultFileKey, resultPageKey } from "../storage/keys";
import { type ControlDeps, resolveOrFail, runningJobOf, stopWork, type TrainerJob } from "./control-scope";
import type { TrainerKind } from "./trainer-kind";

async function target(deps: ControlDeps, r: TrainerJob<"infer_batch">) {
  const input = r.job.input as InferBatchInput;
  const version = await resolveOrFail(r, () => batchVersion(deps.db, r.job));
  return { input, version, artifactKey: version.artifactKey as string };
}

export const batchKind: TrainerKind<"infer_batch"> = {
  async task(deps, r) {
    const { input, version } = await target(deps, r);
    const model_version = { id: version.id, version: version.version };
    return { model_type: r.job.modelType, output_type: input.output_type, model_version, instances: deps.searchInstances };
  },
  /** The rows: a stored dataset version's frame (uploaded files are run by the queue consumer). */
  async readFrame(deps, r, read) {
    const { input } = await target(deps, r);
    if (input.source !== "dataset") throw new NotFound("This job's rows are an uploaded file, read by the Worker.");
    const obj = await read(input.frame_key);
    if (!obj) {
      await r.jobObj.fail("The dataset version's data is gone.", r.attempt);
      throw stopWork();
    }
    return obj;
  },
  async succeed(deps, r, output) {
    await target(deps, r);
    const rows = typeof output.rows === "number" ? output.rows : 0;
    if (!(await r.jobObj.succeed(output, rows, r.attempt))) throw stopWork();
    return { ok: true };
  },
  // uploaded files (≤ 30 MB) are run by the queue consumer in the Worker
  ranOnTrainer: (job) => job.input?.source === "dataset",
};

/** A batch inference job reads its model version's files. */
export async function readArtifact(deps: ControlDeps, jobId: string, attempt: number, file: string): Promise<R2ObjectBody> {
  const r = await runningJobOf(deps, jobId, attempt, "infer_batch");
  if (!artifactFile.safeParse(file).success) throw new NotFound();
  const { artifactKey } = await target(deps, r);
  const obj = await deps.bucket.get(artifactKey + file);
  if (!obj) throw new NotFound(`The model version has no ${file}.`);
  return obj;
}

/** `page-000012.json`, `results.csv` or `results.parquet` → its key and content type; else null. */
function resultFile(job: JobRecord, name: string): { key: string; contentType: string } | null {
  const page = RESULT_PAGE_NAME.exec(name);
  if (page) return { key: resultPageKey(job.orgId, job.id, Number(page[1])), contentType: OUTPUT_CONTENT_TYPES.json };
  const whole = RESULT_FILE_NAME.exec(name);
  if (!whole) return null;
  const format = whole[1] as "csv" | "parquet";
  return { key: resultFileKey(job.orgId, job.id, format), contentType: OUTPUT_CONTENT_TYPES[format] };
}

/**
 * A batch inference job writes many of its JSON result pages at once (one a line, from page
 * `first` on): one call's checks for a hundred pages, not one each.
 */
export async function writeResultPages(deps: ControlDeps, jobId: string, attempt: number, first: number, body: string): Promise<void> {
  const r = await runningJobOf(deps, jobId, attempt, "infer_batch");
  await target(deps, r);
  const pages = body.split("\n");
  if (pages.length > RESULT_PAGES_PER_WRITE) throw new TooLarge(`At most ${RESULT_PAGES_PER_WRITE} result pages a call.`, RESULT_PAGES_PER_WRITE);
  const options = { httpMetadata: { contentType: OUTPUT_CONTENT_TYPES.json } };
  await Promise.all(pages.map((json, i) => deps.bucket.put(resultPageKey(r.job.orgId, r.job.id, first + i), json, options)));
}

/** A batch inference job writes its result files. */
export async function writeResult(deps: ControlDeps, jobId: string, attempt: number, name: string, body: ArrayBuffer): Promise<void> {
  const r = await runningJobOf(deps, jobId, attempt, "infer_batch");
  const file = resultFile(r.job, name);
  if (!file) throw new NotFound();
  await target(deps, r);
  await deps.bucket.put(file.key, body, { httpMetadata: { contentType: file.contentType } });
}
