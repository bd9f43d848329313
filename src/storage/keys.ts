/**
 * Where bytes live in R2. Everything of an organization sits under its prefix, everything of a
 * dataset under the dataset's, so deleting a dataset is deleting one prefix.
 */
export const datasetPrefix = (orgId: string, datasetId: string) => `orgs/${orgId}/datasets/${datasetId}/`;

export const versionPrefix = (orgId: string, datasetId: string, versionId: string) => `${datasetPrefix(orgId, datasetId)}versions/${versionId}/`;

/** An uploaded source file, kept as uploaded. The file id keeps names of batch files apart. */
export const sourceFileKey = (orgId: string, datasetId: string, versionId: string, fileId: string, filename: string) =>
  `${versionPrefix(orgId, datasetId, versionId)}source/${fileId}/${safeName(filename)}`;

/** The canonical columnar copy written by ingestion, read by training, previews and look-ups. */
export const frameKey = (orgId: string, datasetId: string, versionId: string) => `${versionPrefix(orgId, datasetId, versionId)}frame.bin`;

/** The first PREVIEW_ROWS rows of the frame, so previews do not read the whole table. */
export const previewKey = (orgId: string, datasetId: string, versionId: string) => `${versionPrefix(orgId, datasetId, versionId)}preview.bin`;

function safeName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "file";
  return base.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 200) || "file";
}

/** Delete every object under a prefix (R2 lists at most 1000 keys a page). */
export async function deletePrefix(bucket: R2Bucket, prefix: string): Promise<number> {
  let deleted = 0;
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, cursor });
    const keys = page.objects.map((o) => o.key);
    if (keys.length) await bucket.delete(keys);
    deleted += keys.length;
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return deleted;
}

/**
 * The shared representation of a dataset version (profile, featurizer, bins, self-supervised
 * encoder), built by the first model trained on it and reused by every later one. It lives with
 * the version, so deleting the dataset deletes it too.
 */
export const representationKey = (orgId: string, datasetId: string, versionId: string) =>
  `${versionPrefix(orgId, datasetId, versionId)}representation.json`;

/** Everything of a model: its versions' artifacts. Models keep them when their dataset is deleted. */
export const modelPrefix = (orgId: string, modelId: string) => `orgs/${orgId}/models/${modelId}/`;

export const modelVersionPrefix = (orgId: string, modelId: string, versionId: string) => `${modelPrefix(orgId, modelId)}versions/${versionId}/`;

/**
 * The artifacts of a model version: the ONNX graph, the featurizer that feeds it, a search model's
 * index, the full summary, a causal model's cross-fitted pseudo-outcomes per training row, a
 * prediction model's trees as JSON (what explanations walk: TreeSHAP and the flip search), and
 * what the explanations of an anomaly model (its isolation forest with the trees' sub-sample
 * sizes) and of a clustering model (its space and centres) read.
 */
export const ARTIFACT_FILES = {
  onnx: "model.onnx",
  featurizer: "featurizer.json",
  index: "index.bin",
  summary: "summary.json",
  pseudo_outcomes: "pseudo_outcomes.bin",
  gbdt: "gbdt.json",
  iforest: "iforest.json",
  kmeans: "kmeans.json",
} as const;
export type ArtifactFile = (typeof ARTIFACT_FILES)[keyof typeof ARTIFACT_FILES];

/** An inference job's files: its uploaded input (async inference) and its results. */
export const jobPrefix = (orgId: string, jobId: string) => `orgs/${orgId}/jobs/${jobId}/`;

/**
 * A training job's model search run on several instances: the rows and folds its trials read,
 * and each trial's outcome (models and out-of-fold scores), under the attempt; deleted when the
 * search closes.
 */
export const searchPrefix = (orgId: string, jobId: string, attempt: number) => `${searchFilesPrefix(orgId, jobId)}${attempt}/`;
/** Every attempt's search files: deleted when the job ends (an attempt that died never closed its search). */
export const searchFilesPrefix = (orgId: string, jobId: string) => `${jobPrefix(orgId, jobId)}search/`;
export const searchDataKey = (orgId: string, jobId: string, attempt: number) => `${searchPrefix(orgId, jobId, attempt)}data.bin`;
export const trialOutcomeKey = (orgId: string, jobId: string, attempt: number, trial: number) =>
  `${searchPrefix(orgId, jobId, attempt)}trials/${trial}.bin`;

export const inferenceInputKey = (orgId: string, jobId: string, filename: string) => `${jobPrefix(orgId, jobId)}input/${safeName(filename)}`;

/**
 * The results of an inference job: the whole table as csv and parquet (downloads, streamed), and
 * as JSON pages of RESULT_PAGE_ROWS rows (`?format=json` reads one or two pages, never the whole).
 */
export const resultFileName = (format: "csv" | "parquet") => `results.${format}`;
export const resultFileKey = (orgId: string, jobId: string, format: "csv" | "parquet") =>
  `${jobPrefix(orgId, jobId)}results/${resultFileName(format)}`;

export const resultPageName = (page: number) => `page-${String(page).padStart(6, "0")}.json`;
/** The names above, read back (a trainer names the result files it stores): the page number, the format. */
export const RESULT_PAGE_NAME = /^page-(\d{6,})\.json$/;
export const RESULT_FILE_NAME = /^results\.(csv|parquet)$/;
export const resultPageKey = (orgId: string, jobId: string, page: number) => `${jobPrefix(orgId, jobId)}results/${resultPageName(page)}`;
