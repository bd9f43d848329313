import { and, eq } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { BadRequest, Conflict, Forbidden, InvalidInput, LengthRequired, NotFound } from "../core/errors";
import { UPLOAD_URL_TTL_S, WORKER_INGEST_MAX_BYTES } from "../core/limits";
import { fileWithVersionStatus } from "../db/dataset-versions";
import { datasetFiles, jobs } from "../db/schema";
import { detectFormat } from "../ingest/detect";
import { jobObject } from "../jobs/job-object";
import { createJob, dispatch } from "../jobs/service";
import { sourceFileKey } from "../storage/keys";
import { verifyUploadToken } from "../storage/signed-upload";
import { sha256OfObject } from "./checksum";
import type { DatasetDeps } from "./deps";
import { createVersion, findDatasetByName, findVersion, orDiscard } from "./records";
import { unsupportedType } from "./upload-file";

interface FileSpec {
  filename: string;
  bytes: number;
  content_type: string;
  checksum_sha256?: string;
}

interface PrepareRequest {
  datasetId?: string;
  name?: string;
  description?: string;
  files: FileSpec[];
  input?: Record<string, unknown>;
}

/**
 * Prepare a signed-URL upload of one or more files: a dataset version waiting for its files, an
 * ingest job in `waiting_for_upload`, and one signed PUT URL per file. Field errors name the
 * files as `files[i]`.
 */
export async function prepareUpload(deps: DatasetDeps, principal: Principal, req: PrepareRequest) {
  const formats = new Set<string>();
  req.files.forEach((f, i) => {
    const max = deps.uploadTarget.maxBytes;
    if (f.bytes > max) {
      throw InvalidInput.field(
        ["files", i, "bytes"],
        `File is larger than the ${max >= 1000 * 1024 * 1024 ? `${max / 1000 / 1024 / 1024} GB` : `${max / 1024 / 1024} MB`} upload limit`,
        f.bytes,
        "less_than_equal",
      );
    }
    const format = detectFormat(f.filename, f.content_type, null);
    if (!format) throw unsupportedType(f.filename);
    formats.add(format);
  });
  if (formats.size > 1) throw InvalidInput.field(["files"], "All files of one dataset version must have the same format", null);
  const format = [...formats][0];
  const totalBytes = req.files.reduce((s, f) => s + f.bytes, 0);
  if (totalBytes > WORKER_INGEST_MAX_BYTES && !deps.trainerIngests) {
    const path = req.files.length === 1 ? ["files", 0, "bytes"] : ["files"];
    throw InvalidInput.field(
      path,
      `Uploads over ${WORKER_INGEST_MAX_BYTES / 1024 / 1024} MB in total are ingested by the trainer container, which this deployment does not provide; split the table or upload it as Parquet.`,
      totalBytes,
      "less_than_equal",
    );
  }
  const created = await createVersion(
    deps.db,
    principal,
    { datasetId: req.datasetId, name: req.name, description: req.description },
    {
      status: "waiting_for_upload",
      sourceFilename: req.files
        .map((f) => f.filename)
        .join(", ")
        .slice(0, 500),
      contentType: req.files[0].content_type,
      format,
      sizeBytes: totalBytes,
    },
  );
  const { dataset, version } = created;
  const expiresAtMs = Date.now() + UPLOAD_URL_TTL_S * 1000;
  const uploads = [];
  const rows: (typeof datasetFiles.$inferInsert)[] = [];
  for (const f of req.files) {
    const fileId = crypto.randomUUID();
    const objectKey = sourceFileKey(principal.orgId, dataset.id, version.id, fileId, f.filename);
    rows.push({
      id: fileId,
      datasetVersionId: version.id,
      orgId: principal.orgId,
      filename: f.filename,
      contentType: f.content_type,
      bytes: f.bytes,
      checksumSha256: f.checksum_sha256?.toLowerCase() ?? null,
      objectKey,
      status: "pending",
      errorMessage: null,
      createdAt: version.createdAt,
    });
    const url = await deps.uploadTarget.urlFor(
      { fileId, orgId: principal.orgId, objectKey, contentType: f.content_type, bytes: f.bytes },
      expiresAtMs,
    );
    uploads.push({
      file_id: fileId,
      filename: f.filename,
      bytes: f.bytes,
      content_type: f.content_type,
      upload_url: url,
      object_name: objectKey,
    });
  }
  const job = await orDiscard(deps.db, deps.bucket, created, async () => {
    // One round trip for all file rows, in request order (ingest reads them back in that order).
    const [first, ...rest] = rows.map((r) => deps.db.insert(datasetFiles).values(r));
    await deps.db.batch([first, ...rest]);
    return createJob(
      deps,
      principal,
      {
        type: "dataset_ingest",
        datasetId: dataset.id,
        datasetVersionId: version.id,
        datasetName: dataset.name,
        inputFilename: req.files.length === 1 ? req.files[0].filename : `${req.files.length} files`,
        input: { source: "signed_upload", format, bytes: totalBytes, files: req.files.length, ...req.input },
      },
      { status: "waiting_for_upload", uploadExpiresAtMs: expiresAtMs },
    );
  });
  return { dataset, version, job, uploads, expiresAt: new Date(expiresAtMs).toISOString() };
}

/** Resolve the dataset a batch upload targets: explicit id, same name when `overrides`, or new. */
export async function batchTargetDataset(
  deps: DatasetDeps,
  principal: Principal,
  body: { dataset_id?: string; dataset_name?: string; overrides?: boolean },
) {
  if (body.dataset_id) return body.dataset_id;
  if (body.overrides && body.dataset_name) return (await findDatasetByName(deps.db, principal, body.dataset_name))?.id;
  return undefined;
}

/** The bytes of one file as the signed PUT delivers them. */
export interface FileDelivery {
  contentType: string;
  /** The declared Content-Length; undefined when absent or not a number. */
  contentLength: number | undefined;
  body: ReadableStream<Uint8Array> | null;
}

/** PUT /uploads/{token}: the bytes of one file, checked against what was declared. */
export async function receiveUpload(deps: DatasetDeps, token: string, put: FileDelivery) {
  const check = await verifyUploadToken(deps.signingSecret, token);
  if (check.status === "expired") throw new Forbidden("This upload URL has expired. Prepare a new upload.");
  if (check.status === "invalid") throw new Forbidden();
  const claim = check.claim;
  const file = await fileWithVersionStatus(deps.db, claim.org_id, claim.file_id);
  if (!file) throw new NotFound();
  if (file.versionStatus !== "waiting_for_upload") throw new Conflict("This upload was already completed; its file can no longer be replaced.");
  const contentType = put.contentType.split(";")[0].trim();
  if (contentType !== claim.content_type.split(";")[0].trim()) {
    throw new BadRequest(`Content-Type must be '${claim.content_type}' as declared when the upload was prepared (got '${contentType || "none"}').`);
  }
  const length = put.contentLength;
  if (length === undefined) throw new LengthRequired("Content-Length header required.");
  if (length !== claim.bytes) throw new BadRequest(`File is ${length} bytes but ${claim.bytes} bytes were declared when the upload was prepared.`);
  if (!put.body) throw new BadRequest("Empty request body.");
  await deps.bucket.put(file.file.objectKey, put.body, { httpMetadata: { contentType: claim.content_type } });
  let status = "uploaded";
  let errorMessage: string | null = null;
  if (file.file.checksumSha256) {
    const actual = await sha256OfObject(deps.bucket, file.file.objectKey);
    if (actual !== file.file.checksumSha256) {
      status = "failed";
      errorMessage = `SHA-256 mismatch for '${file.file.filename}': declared ${file.file.checksumSha256}, received ${actual}.`;
      await deps.bucket.delete(file.file.objectKey);
    }
  }
  await deps.db.update(datasetFiles).set({ status, errorMessage }).where(eq(datasetFiles.id, file.file.id));
  if (errorMessage) throw new BadRequest(errorMessage);
  return { file_id: file.file.id, filename: file.file.filename, bytes: length, status: "uploaded" as const };
}

/** POST /datasets/{dataset_version_id}/complete: every file is in, start ingestion. */
export async function completeUpload(deps: DatasetDeps, principal: Principal, versionId: string) {
  const version = await findVersion(deps.db, principal, versionId);
  const files = await deps.db.select().from(datasetFiles).where(eq(datasetFiles.datasetVersionId, version.id));
  const ingestJobId = await ingestJobIdOf(deps, version.id);
  if (version.status !== "waiting_for_upload" || !ingestJobId) {
    throw new Conflict(`This upload is already completed (dataset version status: ${version.status}).`);
  }
  for (const f of files) {
    // The record says uploaded only after the bytes were stored; check that they are still there.
    if (f.status === "uploaded" && !(await deps.bucket.head(f.objectKey))) f.status = "pending";
    // A presigned PUT went straight to R2: what arrived is checked now.
    if (f.status === "pending") Object.assign(f, await verifyDelivered(deps, f));
  }
  const counts = {
    expected: files.length,
    uploaded: files.filter((f) => f.status === "uploaded").length,
    failed: files.filter((f) => f.status === "failed").length,
  };
  const jobObj = jobObject(deps.jobs, ingestJobId);
  if (counts.failed > 0) {
    const reasons = files.filter((f) => f.status === "failed").map((f) => f.errorMessage ?? f.filename);
    await jobObj.fail(`${counts.failed} of ${counts.expected} files failed verification: ${reasons.join("; ")}`);
  } else if (counts.uploaded < counts.expected) {
    const missing = files.filter((f) => f.status !== "uploaded").map((f) => f.filename);
    throw new Conflict(
      `${counts.expected - counts.uploaded} of ${counts.expected} files have not been uploaded yet: ${missing.join(", ")}. PUT each file to its upload_url first.`,
    );
  } else {
    const moved = await jobObj.markUploaded();
    if (!moved.ok) throw new Conflict(`This upload can no longer be completed (job status: ${moved.status}).`);
    await dispatch(deps.queue, ingestJobId);
  }
  const job = await jobObj.get();
  return {
    dataset_id: version.datasetId,
    dataset_version_id: version.id,
    job_id: ingestJobId,
    status: job?.status ?? "failed",
    counts,
  };
}

/**
 * A file PUT straight to R2: pending while absent; else uploaded when its size, content type
 * and (when declared) SHA-256 are the declared ones, failed (and deleted) otherwise.
 */
async function verifyDelivered(deps: DatasetDeps, f: typeof datasetFiles.$inferSelect) {
  const obj = await deps.bucket.head(f.objectKey);
  if (!obj) return { status: "pending", errorMessage: null };
  const type = (obj.httpMetadata?.contentType ?? "").split(";")[0].trim();
  let errorMessage: string | null = null;
  if (obj.size !== f.bytes) errorMessage = `'${f.filename}' is ${obj.size} bytes but ${f.bytes} bytes were declared.`;
  else if (type !== f.contentType.split(";")[0].trim()) errorMessage = `'${f.filename}' arrived as '${type}' but '${f.contentType}' was declared.`;
  else if (f.checksumSha256) {
    const actual = await sha256OfObject(deps.bucket, f.objectKey);
    if (actual !== f.checksumSha256) errorMessage = `SHA-256 mismatch for '${f.filename}': declared ${f.checksumSha256}, received ${actual}.`;
  }
  const status = errorMessage ? "failed" : "uploaded";
  if (errorMessage) await deps.bucket.delete(f.objectKey);
  await deps.db.update(datasetFiles).set({ status, errorMessage }).where(eq(datasetFiles.id, f.id));
  return { status, errorMessage };
}

async function ingestJobIdOf(deps: DatasetDeps, versionId: string): Promise<string | undefined> {
  const rows = await deps.db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.datasetVersionId, versionId), eq(jobs.type, "dataset_ingest"), eq(jobs.status, "waiting_for_upload")))
    .limit(1);
  return rows[0]?.id;
}
