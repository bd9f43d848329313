import type { Principal } from "../auth/principal";
import { DIRECT_UPLOAD_MAX_BYTES } from "../core/limits";
import { datasetFiles } from "../db/schema";
import { createJob } from "../jobs/service";
import { sourceFileKey } from "../storage/keys";
import type { DatasetDeps } from "./deps";
import { createVersion, orDiscard } from "./records";
import { directUploadTooLarge, uploadedFileFormat } from "./upload-file";

export interface DirectUpload {
  file: File;
  /** A new dataset's name; not needed when `datasetId` names the dataset to add a version to. */
  name?: string;
  datasetId?: string;
  description?: string;
}

/** POST /datasets: store the file in R2, create the dataset version and its ingest job. */
export async function createDatasetFromUpload(deps: DatasetDeps, principal: Principal, req: DirectUpload) {
  const { file } = req;
  if (file.size > DIRECT_UPLOAD_MAX_BYTES) throw directUploadTooLarge();
  const format = await uploadedFileFormat(file);
  const created = await createVersion(
    deps.db,
    principal,
    { datasetId: req.datasetId, name: req.name, description: req.description },
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
