import type { Principal } from "../api/context";
import { ApiError, invalid } from "../api/errors";
import { parseWith } from "../api/validation";
import { datasetFiles } from "../db/schema";
import { detectFormat } from "../ingest/detect";
import { createJob } from "../jobs/service";
import { sourceFileKey } from "../storage/keys";
import { DIRECT_UPLOAD_MAX_BYTES, type DatasetDeps } from "./deps";
import { createVersion, orDiscard } from "./records";
import { directUploadForm } from "./schemas";

export const tooLarge = () =>
  new ApiError(
    413,
    `File exceeds the ${DIRECT_UPLOAD_MAX_BYTES / 1024 / 1024} MB direct-upload limit. For larger files use the signed-URL flow: POST /datasets/upload, PUT the file to the returned upload_url, then POST /datasets/{dataset_version_id}/complete.`,
  );

export const unsupportedType = (filename: string) =>
  new ApiError(415, `Unsupported file type for '${filename}': upload a CSV (.csv, .tsv, .txt) or Parquet (.parquet) file.`);

/** The `file` field of a multipart form, checked for size and type. */
export async function requireUploadedFile(form: Record<string, unknown>): Promise<{ file: File; format: "csv" | "parquet" }> {
  const file = form.file;
  if (!(file instanceof File)) throw invalid(["body", "file"], "Field required: a file part named 'file'", null, "missing");
  if (file.size > DIRECT_UPLOAD_MAX_BYTES) throw tooLarge();
  const head = new Uint8Array(await file.slice(0, 8).arrayBuffer());
  const format = detectFormat(file.name, file.type, head);
  if (!format) throw unsupportedType(file.name);
  return { file, format };
}

/** POST /datasets: store the file in R2, create the dataset version and its ingest job. */
export async function createDatasetFromUpload(deps: DatasetDeps, principal: Principal, form: Record<string, unknown>) {
  const fields = parseWith(directUploadForm, pickStrings(form), "body");
  const { file, format } = await requireUploadedFile(form);
  const created = await createVersion(
    deps.db,
    principal,
    { datasetId: fields.dataset_id, name: fields.dataset_name, description: fields.description },
    { status: "queued", sourceFilename: file.name, contentType: file.type || null, format, sizeBytes: file.size },
  );
  const { dataset, version } = created;
  const job = await orDiscard(deps.db, deps.bucket, created, async () => {
    const fileId = crypto.randomUUID();
    const objectKey = sourceFileKey(principal.orgId, dataset.id, version.id, fileId, file.name);
    await deps.bucket.put(objectKey, file, { httpMetadata: { contentType: file.type || "application/octet-stream" } });
    await deps.db.insert(datasetFiles).values({
      id: fileId,
      datasetVersionId: version.id,
      orgId: principal.orgId,
      filename: file.name,
      contentType: file.type || "application/octet-stream",
      bytes: file.size,
      checksumSha256: null,
      objectKey,
      status: "uploaded",
      errorMessage: null,
      createdAt: version.createdAt,
    });
    return createJob(deps, principal, {
      type: "dataset_ingest",
      datasetId: dataset.id,
      datasetVersionId: version.id,
      datasetName: dataset.name,
      inputFilename: file.name,
      input: { source: "direct", format, bytes: file.size },
    });
  });
  return {
    dataset: { id: dataset.id, version_id: version.id, version_number: version.version },
    job_id: job.id,
    status: job.status,
  };
}

/** The string fields of a multipart form (files left out). */
export function pickStrings(form: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(form)) if (typeof v === "string") out[k] = v;
  return out;
}
