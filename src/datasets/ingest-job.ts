import { eq, sql } from "drizzle-orm";
import { MAX_FRAME_CELLS, PREVIEW_ROWS, WORKER_INGEST_MAX_BYTES } from "../core/limits";
import type { Db } from "../db/client";
import { recordIngested, versionById } from "../db/dataset-versions";
import { datasetFiles } from "../db/schema";
import { encodeFrame, frameChunks } from "../ingest/columnar";
import { IngestError } from "../ingest/errors";
import { headFrame } from "../ingest/head";
import { portableCompressors } from "../ingest/portable-compressors";
import { readSources } from "../ingest/read-sources";
import { JobInputError } from "../jobs/errors";
import type { JobRecord } from "../jobs/types";
import type { JobControl } from "../jobs/work";
import type { Frame } from "../ml/frame";
import { type ColumnProfile, profileColumn, profileFrame } from "../ml/profile";
import { frameKey, previewKey } from "../storage/keys";

export interface IngestDeps {
  db: Db;
  bucket: R2Bucket;
  /** Hands the job to the trainer (absent without one: uploads over the Worker's limit fail). */
  handToTrainer?: (assignment: { job_id: string; attempt: number }) => Promise<void>;
}

type FileRow = typeof datasetFiles.$inferSelect;

/** What an ingest job reads: its dataset version and the version's files, every one uploaded. */
export async function ingestSources(db: Db, job: JobRecord) {
  if (!job.datasetVersionId) throw new JobInputError("The job names no dataset version.");
  const version = await versionById(db, job.datasetVersionId);
  if (!version) throw new JobInputError("The dataset version no longer exists (the dataset was deleted).");
  const files: FileRow[] = await db
    .select()
    .from(datasetFiles)
    .where(eq(datasetFiles.datasetVersionId, version.id))
    // Insertion order (SQLite's rowid) is the order the files were listed in the request: all files
    // of a version share created_at, and their ids are random, so neither orders them.
    .orderBy(sql`rowid`);
  if (files.length === 0) throw new JobInputError("The dataset version has no uploaded file.");
  // Every file or none: a retried job must not quietly ingest the files that did arrive.
  const notIn = files.filter((f) => f.status !== "uploaded");
  if (notIn.length > 0) {
    throw new JobInputError(
      `${notIn.length} of ${files.length} files of this dataset version were not uploaded intact (${notIn.map((f) => f.filename).join(", ")}); upload the dataset again.`,
    );
  }
  const format: "csv" | "parquet" = version.format === "parquet" ? "parquet" : "csv";
  return { version, files, format, totalBytes: files.reduce((s, f) => s + f.bytes, 0) };
}

/** What ingestion learned about the table, recorded on the version (both paths). */
export interface IngestSummary {
  rowCount: number;
  columnCount: number;
  idGenerated: boolean;
  profile: ColumnProfile[];
}

const summaryOf = (frame: Frame, idGenerated: boolean, profile: ColumnProfile[]): IngestSummary => ({
  rowCount: frame.rowCount,
  columnCount: frame.columns.length - (idGenerated ? 1 : 0),
  idGenerated,
  profile,
});

export const ingestSummary = (frame: Frame, idGenerated: boolean): IngestSummary => summaryOf(frame, idGenerated, profileFrame(frame));

/**
 * ingestSummary one column at a time, with `turn()` awaited between columns: a large table's
 * profile takes seconds of CPU, and I/O in flight meanwhile (the trainer storing the frame) needs
 * the event loop now and then to keep its sockets fed.
 */
export async function ingestSummaryInTurns(frame: Frame, idGenerated: boolean, turn: () => Promise<void>): Promise<IngestSummary> {
  const profile: ColumnProfile[] = [];
  for (const column of frame.columns) {
    profile.push(profileColumn(column));
    await turn();
  }
  return summaryOf(frame, idGenerated, profile);
}

export async function recordIngest(db: Db, versionId: string, key: string, s: IngestSummary): Promise<void> {
  await recordIngested(db, versionId, {
    rowCount: s.rowCount,
    columnCount: s.columnCount,
    columnsJson: JSON.stringify(s.profile),
    frameKey: key,
    idsGenerated: s.idGenerated,
  });
}

/**
 * The dataset_ingest job: source files in R2 → canonical columnar frame + column profile. Uploads
 * the Worker can hold are read here; larger ones by the trainer, through the control routes.
 */
export async function runIngestJob(deps: IngestDeps, job: JobRecord, control: JobControl) {
  const { version, files, format, totalBytes } = await ingestSources(deps.db, job);
  const toTrainer = async () => {
    await deps.handToTrainer?.({ job_id: job.id, attempt: control.attempt });
    return { settled: true as const };
  };
  if (totalBytes > WORKER_INGEST_MAX_BYTES) {
    if (!deps.handToTrainer) {
      throw new JobInputError(
        `Files over ${WORKER_INGEST_MAX_BYTES / 1024 / 1024} MB in total are ingested by the trainer container, which this deployment does not provide.`,
      );
    }
    return toTrainer();
  }
  await control.report({ progress: 5 });
  const read = await readSources(
    files.map((f) => ({ filename: f.filename, bytes: f.bytes, open: () => openSource(deps.bucket, f) })),
    {
      format,
      maxCells: MAX_FRAME_CELLS,
      compressors: portableCompressors,
      onProgress: (done, total) => control.report({ progress: 5 + Math.round((70 * done) / Math.max(1, total)) }),
    },
  ).catch((e) => {
    // A small file can still hold more cells than the Worker reads: the trainer takes those.
    if (e instanceof IngestError && e.code === "too_large" && deps.handToTrainer) return null;
    throw e;
  });
  if (!read) return toTrainer();
  const { frame, idGenerated } = read;
  const summary = ingestSummary(frame, idGenerated);
  const key = frameKey(version.orgId, version.datasetId, version.id);
  await deps.bucket.put(key, frameStream(frame));
  await deps.bucket.put(previewKey(version.orgId, version.datasetId, version.id), encodeFrame(headFrame(frame, PREVIEW_ROWS)));
  try {
    await control.report({ progress: 95, rows_processed: frame.rowCount });
  } catch (e) {
    // Canceled meanwhile (e.g. the dataset is being deleted): leave nothing behind.
    await deps.bucket.delete(key);
    throw e;
  }
  await recordIngest(deps.db, version.id, key, summary);
  return {
    output: { row_count: frame.rowCount, column_count: summary.columnCount, format: version.format, bytes: totalBytes, files: files.length },
    rowsProcessed: frame.rowCount,
  };
}

export async function openSource(bucket: R2Bucket, f: FileRow, range?: { offset: number; length: number }): Promise<ReadableStream<Uint8Array>> {
  const obj = await bucket.get(f.objectKey, range ? { range } : undefined);
  if (!obj) throw missingSource(f);
  return obj.body;
}

/** Checks that an uploaded file is still stored (before handing out a URL to it), as openSource does. */
export async function checkSource(bucket: R2Bucket, f: FileRow): Promise<void> {
  if (!(await bucket.head(f.objectKey))) throw missingSource(f);
}

const missingSource = (f: FileRow) => new JobInputError(`The uploaded file '${f.filename}' is missing from storage; upload it again.`);

/**
 * The encoded frame as a stream of its pieces, views over its columns: no second copy of the data
 * in memory. Raw columns (`narrow: false`): a frame written here is read back whole by Workers, and
 * raw columns decode as views, without the widened copies that would add to a Worker's peak.
 */
function frameStream(frame: Frame): ReadableStream<Uint8Array> {
  const { byteLength, chunks } = frameChunks(frame, { narrow: false });
  const { readable, writable } = new FixedLengthStream(byteLength);
  const writer = writable.getWriter();
  (async () => {
    for (const c of chunks) await writer.write(c);
    await writer.close();
  })().catch((e) => writer.abort(e).catch(() => {}));
  return readable;
}
