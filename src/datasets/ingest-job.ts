import { eq, sql } from "drizzle-orm";
import { PREVIEW_ROWS, WORKER_INGEST_MAX_BYTES } from "../core/limits";
import type { Db } from "../db/client";
import { recordIngested, versionById } from "../db/dataset-versions";
import { datasetFiles } from "../db/schema";
import { encodeFrame, frameChunks } from "../ingest/columnar";
import { concatFrames } from "../ingest/concat";
import { readCsv } from "../ingest/csv";
import { headFrame } from "../ingest/head";
import { readParquet } from "../ingest/parquet";
import { portableCompressors } from "../ingest/portable-compressors";
import type { IngestResult } from "../ingest/types";
import { JobInputError } from "../jobs/errors";
import type { JobRecord } from "../jobs/types";
import type { JobControl } from "../jobs/work";
import type { Frame } from "../ml/frame";
import { profileFrame } from "../ml/profile";
import { frameKey, previewKey } from "../storage/keys";

export interface IngestDeps {
  db: Db;
  bucket: R2Bucket;
}

/** The dataset_ingest job: source files in R2 → canonical columnar frame + column profile. */
export async function runIngestJob(deps: IngestDeps, job: JobRecord, control: JobControl) {
  if (!job.datasetVersionId) throw new JobInputError("The job names no dataset version.");
  const version = await versionById(deps.db, job.datasetVersionId);
  if (!version) throw new JobInputError("The dataset version no longer exists (the dataset was deleted).");
  const files = await deps.db
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
  const totalBytes = files.reduce((s, f) => s + f.bytes, 0);
  if (totalBytes > WORKER_INGEST_MAX_BYTES) {
    throw new JobInputError(
      `Files over ${WORKER_INGEST_MAX_BYTES / 1024 / 1024} MB in total are ingested by the trainer container, which this deployment does not provide yet.`,
    );
  }
  await control.report({ progress: 5 });
  const results: IngestResult[] = [];
  for (const [i, f] of files.entries()) {
    const obj = await deps.bucket.get(f.objectKey);
    if (!obj) throw new JobInputError(`The uploaded file '${f.filename}' is missing from storage; upload it again.`);
    results.push(
      version.format === "parquet" ? await readParquet(await obj.arrayBuffer(), { compressors: portableCompressors }) : await readCsv(obj.body),
    );
    await control.report({ progress: 5 + Math.round((70 * (i + 1)) / files.length) });
  }
  const idGenerated = results.every((r) => r.idGenerated);
  const frame =
    results.length === 1
      ? results[0].frame
      : concatFrames(
          results.map((r, i) => ({ frame: r.frame, name: files[i].filename })),
          idGenerated,
        );
  const profile = profileFrame(frame);
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
  const columnCount = frame.columns.length - (idGenerated ? 1 : 0);
  await recordIngested(deps.db, version.id, {
    rowCount: frame.rowCount,
    columnCount,
    columnsJson: JSON.stringify(profile),
    frameKey: key,
    idsGenerated: idGenerated,
  });
  return {
    output: { row_count: frame.rowCount, column_count: columnCount, format: version.format, bytes: totalBytes, files: files.length },
    rowsProcessed: frame.rowCount,
  };
}

/** The encoded frame as a stream of views over its columns: no second copy of the data in memory. */
function frameStream(frame: Frame): ReadableStream<Uint8Array> {
  const { byteLength, chunks } = frameChunks(frame);
  const { readable, writable } = new FixedLengthStream(byteLength);
  const writer = writable.getWriter();
  (async () => {
    for (const c of chunks) await writer.write(c);
    await writer.close();
  })().catch((e) => writer.abort(e).catch(() => {}));
  return readable;
}
