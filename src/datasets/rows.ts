import type { Principal } from "../auth/principal";
import { Conflict, NotFound } from "../core/errors";
import { MAX_FRAME_CELLS, WORKER_INGEST_MAX_BYTES } from "../core/limits";
import type { Db } from "../db/client";
import { latestReadyOrCurrent, type VersionRow, versionInDataset } from "../db/dataset-versions";
import { decodeFrame, rowIndexesForIds, sliceRows } from "../ingest/columnar";
import type { Frame } from "../ml/frame";
import { previewKey } from "../storage/keys";
import { findDataset } from "./records";

/** The version rows are read from: the one asked for, else the latest ready one. */
async function readyVersion(db: Db, principal: Principal, datasetId: string, versionId?: string): Promise<VersionRow> {
  const d = await findDataset(db, principal, datasetId);
  const v = versionId ? await versionInDataset(db, d.id, versionId) : await latestReadyOrCurrent(db, d.id);
  if (!v) {
    if (versionId) throw new NotFound();
  }
  if (!v || (!versionId && v.status !== "ready")) {
    throw new Conflict("The dataset has no ready version yet: wait for its ingest job to succeed.");
  }
  if (v.status !== "ready" || !v.frameKey) throw new Conflict(`Dataset version ${v.version} is not ready (status: ${v.status}).`);
  return v;
}

/** The version's frame (its columnar copy), read whole in the Worker: refused clearly when it is too large for that. */
export async function loadFrame(bucket: R2Bucket, v: FrameShape & Pick<VersionRow, "frameKey" | "version">): Promise<Frame> {
  const frame = v.frameKey ? await readFrameInWorker(bucket, v.frameKey, v) : null;
  if (!frame) throw new Error(`canonical frame missing from storage: ${v.frameKey}`);
  return frame;
}

/**
 * The frame stored at `key` (of version `v`, when its row is known), read whole in the Worker;
 * null when it is not stored. Refused (409) by the version's shape before reading and, should
 * that shape be unknown or wrong, by the stored object's size before its body is read.
 */
export async function readFrameInWorker(
  bucket: R2Bucket,
  key: string,
  v?: FrameShape & Pick<VersionRow, "version">,
  maxBytes = MAX_WORKER_FRAME_BYTES,
): Promise<Frame | null> {
  if (v) assertFrameFitsWorker(v);
  const obj = await bucket.get(key);
  if (!obj) return null;
  if (obj.size > maxBytes) {
    await obj.body.cancel().catch(() => {});
    const name = v ? `Dataset version ${v.version}` : "The dataset version";
    throw new FrameTooLargeForWorker(`${name} is stored as ${megabytes(obj.size)} MB, more than the ${megabytes(maxBytes)} MB read here`);
  }
  return decodeFrame(new Uint8Array(await obj.arrayBuffer()));
}

/**
 * The most bytes of a stored frame the Worker reads whole: MAX_FRAME_CELLS cells stored raw (the
 * Worker writes frames raw: 8 bytes a value, plus 4 for a boolean's spellings) and the
 * dictionaries of the largest upload it ingests. A frame the trainer wrote for a larger table is
 * over it even when narrow.
 */
const MAX_WORKER_FRAME_BYTES = MAX_FRAME_CELLS * 12 + WORKER_INGEST_MAX_BYTES;

const megabytes = (bytes: number) => Math.ceil(bytes / 1e6).toLocaleString("en-US");

/** A frame the Worker will not read whole (409): `shape` says how large it is against which limit. */
export class FrameTooLargeForWorker extends Conflict {
  constructor(readonly shape: string) {
    super(
      `${shape}: a table this large is read only by training and batch inference jobs. Use a batch inference job, or send the rows you need as a file.`,
    );
  }
}

/**
 * A Worker reads at most MAX_FRAME_CELLS cells of a frame (128 MB of memory); the trainer ingests
 * tables far larger, whose frames only the trainer reads (training, batch inference). Reading one
 * here would exceed the Worker's memory and end the request without an answer, so such requests
 * are refused with what to do instead. Cells are counted as the readers count them: with the row
 * id column, generated or not.
 */
export function frameFitsWorker(v: FrameShape): boolean {
  const columns = (v.columnCount ?? 0) + (v.idsGenerated === false ? 0 : 1);
  return (v.rowCount ?? 0) * columns <= MAX_FRAME_CELLS;
}

type FrameShape = Pick<VersionRow, "rowCount" | "columnCount" | "idsGenerated">;

function assertFrameFitsWorker(v: FrameShape & Pick<VersionRow, "version">): void {
  if (frameFitsWorker(v)) return;
  throw new FrameTooLargeForWorker(
    `Dataset version ${v.version} has ${v.rowCount?.toLocaleString("en-US")} rows × ${v.columnCount} columns, more than the ${MAX_FRAME_CELLS.toLocaleString("en-US")} cells read here`,
  );
}

export async function previewRows(
  db: Db,
  bucket: R2Bucket,
  principal: Principal,
  datasetId: string,
  q: { limit: number; dataset_version_id?: string },
) {
  const v = await readyVersion(db, principal, datasetId, q.dataset_version_id);
  // The stored head of the table answers any preview (limit <= PREVIEW_ROWS) in one small read.
  const head = await bucket.get(previewKey(v.orgId, v.datasetId, v.id));
  const frame = head ? decodeFrame(new Uint8Array(await head.arrayBuffer())) : await loadFrame(bucket, v);
  const n = Math.min(q.limit, frame.rowCount);
  return {
    dataset_id: v.datasetId,
    dataset_version_id: v.id,
    version_number: v.version,
    columns: frame.columns.map((c) => ({ name: c.name, type: c.kind })),
    total_rows: v.rowCount ?? frame.rowCount,
    rows: sliceRows(
      frame,
      Array.from({ length: n }, (_, i) => i),
    ),
  };
}

/** Rows by their ingest-time id, in the order asked; ids not found are listed apart. */
export async function lookupRows(
  db: Db,
  bucket: R2Bucket,
  principal: Principal,
  datasetId: string,
  body: { ids: (number | string)[]; dataset_version_id?: string },
) {
  const v = await readyVersion(db, principal, datasetId, body.dataset_version_id);
  const frame = await loadFrame(bucket, v);
  const { rows: found, missing } = rowIndexesForIds(frame, body.ids);
  return { dataset_id: v.datasetId, dataset_version_id: v.id, items: sliceRows(frame, found), missing_ids: missing };
}
