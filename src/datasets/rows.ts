import type { Principal } from "../auth/principal";
import { Conflict, NotFound } from "../core/errors";
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

/** A stored frame (a dataset version's columnar copy), read whole. */
export async function loadFrame(bucket: R2Bucket, key: string): Promise<Frame> {
  const obj = await bucket.get(key);
  if (!obj) throw new Error(`canonical frame missing from storage: ${key}`);
  return decodeFrame(new Uint8Array(await obj.arrayBuffer()));
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
  const frame = head ? decodeFrame(new Uint8Array(await head.arrayBuffer())) : await loadFrame(bucket, v.frameKey!);
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
  const frame = await loadFrame(bucket, v.frameKey!);
  const { rows: found, missing } = rowIndexesForIds(frame, body.ids);
  return { dataset_id: v.datasetId, dataset_version_id: v.id, items: sliceRows(frame, found), missing_ids: missing };
}
