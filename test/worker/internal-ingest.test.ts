/**
 * Ingestion in the trainer, through the internal control routes: a running dataset_ingest job
 * (begun by hand so no consumer takes it) is driven as the trainer drives it, with the shared
 * reader, and its dataset version becomes ready with what the trainer stored. The frame's parts
 * are tested in ./internal-frame-upload.test.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { trainerMaxFrameCells } from "../../src/core/limits";
import { ingestSummary } from "../../src/datasets/ingest-job";
import { encodeFrame, frameChunks } from "../../src/ingest/columnar";
import { headFrame } from "../../src/ingest/head";
import { portableCompressors } from "../../src/ingest/portable-compressors";
import { readSources } from "../../src/ingest/read-sources";
import { call, json, newOrg, type TestOrg } from "./helpers";
import { preparedIngest, SECRET } from "./ingest-helpers";
import { runningCopy } from "./model-helpers";

const PARTS = ["id,x,label\n0,1.5,a\n1,2.5,b\n", "id,x,label\n2,3.5,a\n3,4.5,b\n4,5.5,a\n"];

let org: TestOrg;
let prepared: { job_id: string; dataset_id: string };

beforeAll(async () => {
  org = await newOrg();
  prepared = await preparedIngest(org, PARTS);
});

const get = (id: string, path: string, attempt: number) => call(`/internal/jobs/${id}/${path}?attempt=${attempt}`, { headers: SECRET });
const put = (id: string, path: string, attempt: number, body: Uint8Array, query: Record<string, string> = {}) =>
  call(`/internal/jobs/${id}/${path}?${new URLSearchParams({ attempt: String(attempt), ...query })}`, {
    method: "PUT",
    headers: { ...SECRET, "Content-Length": String(body.byteLength) },
    body,
  });
const postJson = (id: string, path: string, body: object) =>
  call(`/internal/jobs/${id}/${path}`, { method: "POST", headers: { ...SECRET, "Content-Type": "application/json" }, body: JSON.stringify(body) });

describe("a dataset_ingest job in the trainer", () => {
  it("reads the files, stores the frame and preview, and makes the version ready", async () => {
    const { id, attempt } = await runningCopy(prepared.job_id);
    const task = await (await get(id, "task", attempt)).json<any>();
    expect(task).toMatchObject({ kind: "dataset_ingest", task: { format: "csv", files: [{ filename: "part0.csv" }, { filename: "part1.csv" }] } });
    // the cells to read at most are the trainer's to decide, from its memory
    expect(task.task).not.toHaveProperty("max_cells");
    expect((await get(id, "sources/2", attempt)).status).toBe(404);
    const progress: number[] = [];
    const { frame, idGenerated } = await readSources(
      task.task.files.map((f: any, i: number) => ({ ...f, open: async () => (await get(id, `sources/${i}`, attempt)).body! })),
      {
        format: "csv",
        maxCells: trainerMaxFrameCells(6 * 1024 ** 3),
        compressors: portableCompressors,
        onProgress: async (read) => void progress.push(read),
      },
    );
    expect(frame.rowCount).toBe(5);
    expect(progress.at(-1)).toBe(PARTS[0].length + PARTS[1].length);
    const { byteLength, chunks } = frameChunks(frame);
    const whole = new Uint8Array(byteLength);
    let at = 0;
    for (const c of chunks) {
      whole.set(c, at);
      at += c.length;
    }
    const { upload_id } = await (await postJson(id, "frame/uploads", { attempt })).json<{ upload_id: string }>();
    const part = await (await put(id, `frame/parts/1`, attempt, whole, { upload_id })).json();
    expect((await postJson(id, "frame/complete", { attempt, upload_id, parts: [part], bytes: byteLength })).status).toBe(200);
    expect((await put(id, "preview", attempt, encodeFrame(headFrame(frame, 500)))).status).toBe(204);
    const summary = ingestSummary(frame, idGenerated);
    const ok = await call(`/internal/jobs/${id}/succeed`, {
      method: "POST",
      headers: { ...SECRET, "Content-Type": "application/json" },
      body: JSON.stringify({ attempt, output: { row_count: 5, column_count: summary.columnCount, summary } }),
    });
    expect(ok.status, await ok.clone().text()).toBe(200);
    const detail = await json<any>(`/jobs/${id}`, org);
    expect(detail.body).toMatchObject({ status: "succeeded", output: { row_count: 5 } });
    expect(detail.body.output.summary).toBeUndefined();
    const ds = await json<any>(`/datasets/${prepared.dataset_id}`, org);
    expect(ds.body.current_version ?? ds.body).toMatchObject({ row_count: 5 });
    const preview = await json<any>(`/datasets/${prepared.dataset_id}/preview?limit=5`, org);
    expect(preview.status).toBe(200);
    expect(JSON.stringify(preview.body)).toContain("5.5");
  });

  it("refuses a succeed without the stored frame or summary, and a preview without its length", async () => {
    const { id, attempt } = await runningCopy(prepared.job_id);
    const succeed = (output: unknown) =>
      call(`/internal/jobs/${id}/succeed`, {
        method: "POST",
        headers: { ...SECRET, "Content-Type": "application/json" },
        body: JSON.stringify({ attempt, output }),
      });
    expect((await succeed({ row_count: 5 })).status).toBe(400);
    const noLength = await call(`/internal/jobs/${id}/preview?attempt=${attempt}`, {
      method: "PUT",
      headers: SECRET,
      body: new ReadableStream({ start: (c) => (c.enqueue(new Uint8Array([1, 2])), c.close()) }),
      duplex: "half",
    } as RequestInit);
    expect(noLength.status).toBe(411);
  });
});
