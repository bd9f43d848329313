/**
 * A dataset version the trainer ingested can hold far more cells than a Worker can read whole
 * (MAX_FRAME_CELLS): requests that would read its frame in the Worker are refused with a 409 that
 * says why and what to do, instead of running out of the Worker's memory. Simulated by recording a
 * large shape on a small version (its frame stays small, so a missing check reads and answers 200).
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { Conflict } from "../../src/core/errors";
import { MAX_FRAME_CELLS } from "../../src/core/limits";
import { readFrameInWorker } from "../../src/datasets/rows";
import { encodeFrame } from "../../src/ingest/codec";
import { json, type TestOrg } from "./helpers";
import { churnCsv, jobEnd, orgWithModel, readyDataset } from "./model-helpers";

let org: TestOrg;
let modelId: string;

beforeAll(async () => {
  ({ org, modelId } = await orgWithModel(3));
}, 90_000);

/** A ready dataset whose version D1 records as `rows` rows of its 6 columns (+ the generated id). */
async function datasetRecordedAs(rows: number) {
  const ds = await readyDataset(org, churnCsv(40), `shape ${rows}`);
  await recordRows(ds.id, rows);
  return ds.id as string;
}

const recordRows = (datasetId: string, rows: number) =>
  env.DB.prepare("UPDATE dataset_versions SET row_count = ? WHERE dataset_id = ?").bind(rows, datasetId).run();

// 6 columns + the generated id: the largest row count a Worker reads, and one more row.
const FITS = Math.floor(MAX_FRAME_CELLS / 7);
const TOO_MANY = FITS + 1;

describe("frames too large for the Worker", () => {
  it("refuses a row look-up with 409 naming the shape and the limit; the preview (the stored head) still answers", async () => {
    const id = await datasetRecordedAs(TOO_MANY);
    const r = await json(`/datasets/${id}/rows/lookup`, org, { method: "POST", body: { ids: [0] } });
    expect(r.status).toBe(409);
    expect(r.body.detail).toBe(
      "Dataset version 1 has 1,428,572 rows × 6 columns, more than the 10,000,000 cells read here: a table this large is read only by training and batch inference jobs. Use a batch inference job, or send the rows you need as a file.",
    );
    expect((await json(`/datasets/${id}/preview?limit=3`, org)).status).toBe(200);
  });

  it("reads a version of exactly the Worker's limit", async () => {
    const id = await datasetRecordedAs(FITS);
    const r = await json(`/datasets/${id}/rows/lookup`, org, { method: "POST", body: { ids: [0] } });
    expect(r.status).toBe(200);
    expect(r.body.items).toHaveLength(1);
  });

  it("refuses to explain rows of a batch inference over such a version, before creating a job", async () => {
    const id = await datasetRecordedAs(FITS);
    const batch = await json(`/models/${modelId}/infer-batch`, org, { method: "POST", body: { dataset_id: id, output_type: "csv" } });
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    expect((await jobEnd(org, batch.body.id)).status).toBe("succeeded");
    // the version is recorded larger only now: the batch job itself ran in the Worker here
    await recordRows(id, TOO_MANY);
    const r = await json(`/jobs/${batch.body.id}/explain`, org, { method: "POST", body: { ids: [0] } });
    expect(r.status).toBe(409);
    expect(r.body.detail).toMatch(/^Dataset version 1 has 1,428,572 rows × 6 columns, more than the 10,000,000 cells read here/);
    const jobs = await json(`/jobs?type=infer_explain`, org);
    expect(jobs.body.items ?? []).toHaveLength(0);
  });

  it("fails a batch inference over such a version, without a trainer, saying the trainer is what it needs", async () => {
    const id = await datasetRecordedAs(TOO_MANY);
    const batch = await json(`/models/${modelId}/infer-batch`, org, { method: "POST", body: { dataset_id: id, output_type: "csv" } });
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    const job = await jobEnd(org, batch.body.id);
    expect(job.status).toBe("failed");
    expect(job.error_message).toBe(
      "Dataset version 1 has 1,428,572 rows × 6 columns, more than the 10,000,000 cells read here; batch inference over a table this large needs the trainer, which this deployment does not have.",
    );
  });

  it("refuses by the stored object's size when the recorded shape is missing or understated, before reading its body", async () => {
    const key = `test/large-frame/${crypto.randomUUID()}`;
    const frame = {
      rowCount: 3,
      columns: [{ name: "x", kind: "numeric" as const, storage: "numeric" as const, values: Float64Array.of(1.5, 2.5, 3.5) }],
    };
    const bytes = encodeFrame(frame);
    await env.BUCKET.put(key, bytes);
    const small = { version: 4, rowCount: 3, columnCount: 1, idsGenerated: false };
    // the limit one byte below the object: refused with or without the version's row
    const refused = readFrameInWorker(env.BUCKET, key, small, bytes.length - 1);
    await expect(refused).rejects.toBeInstanceOf(Conflict);
    await expect(refused).rejects.toThrow(/^Dataset version 4 is stored as 1 MB, more than the 1 MB read here: a table this large/);
    await expect(readFrameInWorker(env.BUCKET, key, undefined, bytes.length - 1)).rejects.toThrow(/^The dataset version is stored as/);
    // at the limit it is read; an absent object is null
    expect(await readFrameInWorker(env.BUCKET, key, small, bytes.length)).toEqual(frame);
    expect(await readFrameInWorker(env.BUCKET, `${key}-absent`, small)).toBeNull();
  });
});
