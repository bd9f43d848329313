/**
 * GET /jobs/{id}/results: the stored results of a succeeded inference job (sync, async, batch), as a page of
 * JSON rows (the same `data` columns as sync inference) or the whole csv / parquet file streamed
 * from R2. The cursor is the offset of the next row (opaque to clients).
 */
import type { Principal } from "../auth/principal";
import { Conflict, InvalidInput } from "../core/errors";
import { INFERENCE_FILES_RETENTION_DAYS } from "../core/limits";
import type { Db } from "../db/client";
import { readInlineFiles } from "../inference/inline-files";
import { encodeTable, type OutputFormat } from "../inference/output";
import { readResultFile, readResultRows, type StoredResults } from "../inference/results";
import { type JobNamespace, jobObject } from "../jobs/job-object";
import { findJob } from "../jobs/service";
import { isInferenceJob } from "../jobs/types";
import type { ResultTable } from "../model-types/contract";

export interface ResultsQuery {
  format?: OutputFormat;
  limit: number;
  cursor?: string;
}

export type JobResults =
  | {
      kind: "json";
      body: {
        job_id: string;
        model_id: string | null;
        model_version_id: string | null;
        total_rows: number;
        columns: string[];
        data: ResultTable;
        next_cursor: string | null;
      };
    }
  | { kind: "file"; body: ReadableStream; size: number; format: "csv" | "parquet"; contentType: string };

export async function jobResults(
  deps: { db: Db; bucket: R2Bucket; jobs: JobNamespace },
  principal: Principal,
  rawId: string,
  q: ResultsQuery,
): Promise<JobResults> {
  const row = await findJob(deps.db, principal, rawId);
  if (!isInferenceJob(row.type)) throw new Conflict(`Only inference jobs have results; this job is a ${row.type} job.`);
  const job = row.status === "succeeded" ? row : ((await jobObject(deps.jobs, row.id).get()) ?? row);
  if (job.status !== "succeeded") {
    throw new Conflict(
      `The job is ${job.status}; its results can be read once it has succeeded${job.status === "failed" ? " (it failed: see error_message, or retry it)" : ""}.`,
    );
  }
  const stored = job.output as StoredResults & { output_type: OutputFormat; files_expired_at?: string; inline?: boolean };
  if (stored?.files_expired_at) {
    throw new Conflict(
      `The results of this job were deleted on ${stored.files_expired_at.slice(0, 10)}, ${INFERENCE_FILES_RETENTION_DAYS} days after it finished; run the inference again.`,
    );
  }
  if (!Array.isArray(stored?.columns)) throw new Conflict("This job's results were not stored; run the inference again.");
  const format = q.format ?? stored.output_type;
  const gone = () => new Conflict("The results of this job are no longer stored; run the inference again.");
  // A small sync job's results are in D1 with it (../inference/inline-files), not in R2.
  const inline = stored.inline === true ? await readInlineFiles(deps.db, job.orgId, job.id) : undefined;
  if (inline === null) throw gone();
  if (format !== "json") {
    if (inline) return encodedFile(inline.results, stored, format);
    if (stored.bytes?.[format] === undefined && stored.column_types) return encodedFromPages(deps.bucket, job, stored, format, gone);
    const obj = await readResultFile(deps.bucket, job.orgId, job.id, format);
    if (!obj) throw gone();
    return { kind: "file", body: obj.body, size: obj.size, format, contentType: obj.httpMetadata?.contentType ?? "application/octet-stream" };
  }
  const offset = q.cursor === undefined ? 0 : Number(q.cursor);
  if (!Number.isSafeInteger(offset) || offset < 0 || offset > stored.rows) {
    throw InvalidInput.queryParam("cursor", "Not a cursor of this job's results; pass next_cursor from the previous page", q.cursor);
  }
  const data = inline
    ? sliceRows(inline.results, stored.columns, offset, q.limit)
    : await readResultRows(deps.bucket, job.orgId, job.id, stored, offset, q.limit);
  if (!data) throw gone();
  const next = offset + q.limit;
  return {
    kind: "json",
    body: {
      job_id: job.id,
      model_id: job.modelId,
      model_version_id: job.modelVersionId,
      total_rows: stored.rows,
      columns: stored.columns,
      data,
      next_cursor: next < stored.rows ? String(next) : null,
    },
  };
}

/**
 * A whole-file form the job did not store (a sync job keeps only its pages and the form it
 * answered with): encoded from the pages now. Sync answers are bounded (INFER_MAX_OUTPUT_VALUES),
 * so this fits the Worker.
 */
async function encodedFromPages(
  bucket: R2Bucket,
  job: { orgId: string; id: string },
  stored: StoredResults,
  format: "csv" | "parquet",
  gone: () => Conflict,
): Promise<JobResults> {
  const table = await readResultRows(bucket, job.orgId, job.id, stored, 0, stored.rows);
  if (!table) throw gone();
  return encodedFile(table, stored, format);
}

function encodedFile(table: ResultTable, stored: StoredResults, format: "csv" | "parquet"): JobResults {
  const encoded = encodeTable(table, format, { columnTypes: stored.column_types });
  const body = typeof encoded.body === "string" ? new TextEncoder().encode(encoded.body) : encoded.body;
  return { kind: "file", body: new Blob([body]).stream(), size: body.byteLength, format, contentType: encoded.contentType };
}

function sliceRows(table: ResultTable, columns: string[], offset: number, limit: number): ResultTable {
  return Object.fromEntries(columns.map((c) => [c, (table[c] ?? []).slice(offset, offset + limit)]));
}
