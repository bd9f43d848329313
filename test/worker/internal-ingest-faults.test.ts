/**
 * A large upload's ingest in the trainer going wrong (issue 13, bad input): the trainer killed
 * mid-ingest (its restart notice, or the watchdog when it just goes silent), a file found to be
 * garbage deep in, a transient fault such as a full disk. The job is retried or failed with a
 * clear message, and the dataset version is never `ready` with part of a table: a frame upload
 * the lost attempt left behind can no longer be completed.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { WORKER_INGEST_MAX_BYTES } from "../../src/core/limits";
import type { JobDO } from "../../src/durable/job";
import { jobObject } from "../../src/jobs/job-object";
import type { JobRecord } from "../../src/jobs/types";
import { call, json, newOrg, type TestOrg, uuidOfPublicJobId } from "./helpers";
import { frameKeyOfVersion, preparedIngest, SECRET } from "./ingest-helpers";
import { jobEnd } from "./model-helpers";

const PARTS = ["id,x,label\n0,1.5,a\n1,2.5,b\n", "id,x,label\n2,3.5,a\n3,4.5,b\n4,5.5,a\n"];

const postJson = (id: string, path: string, body: object) =>
  call(`/internal/jobs/${id}/${path}`, { method: "POST", headers: { ...SECRET, "Content-Type": "application/json" }, body: JSON.stringify(body) });
const putPart = (id: string, attempt: number, uploadId: string, body: Uint8Array) =>
  call(`/internal/jobs/${id}/frame/parts/1?attempt=${attempt}&upload_id=${uploadId}`, {
    method: "PUT",
    headers: { ...SECRET, "Content-Length": String(body.byteLength) },
    body,
  });

interface Running {
  org: TestOrg;
  id: string;
  attempt: number;
  versionId: string;
  stub: DurableObjectStub<JobDO>;
}

/**
 * A dataset_ingest job of a fresh upload running on the trainer: its input says more bytes than
 * the Worker reads (so the trainer's restart notice covers it), begun by hand so that no consumer
 * takes it. Its files are small, so when it is restarted the Worker's consumer runs it here.
 */
async function trainerIngest(): Promise<Running> {
  const org = await newOrg();
  const prepared = await preparedIngest(org, PARTS);
  const source = (await jobObject(env.JOB, uuidOfPublicJobId(prepared.job_id)).get()) as JobRecord;
  const id = crypto.randomUUID();
  const obj = jobObject(env.JOB, id);
  const input = { ...source.input, bytes: WORKER_INGEST_MAX_BYTES + 1 };
  await obj.create({ ...source, id, input, status: "queued", output: null, progress: 0, startedAt: null, finishedAt: null, errorMessage: null });
  const { attempt, job } = await obj.begin({ messageId: crypto.randomUUID() });
  expect(job?.status).toBe("running");
  const stub = env.JOB.get(env.JOB.idFromName(id)) as DurableObjectStub<JobDO>;
  return { org, id, attempt, versionId: source.datasetVersionId!, stub };
}

/** The lost attempt had begun storing its frame: one part sent, never completed. */
async function halfSentFrame(r: Running): Promise<{ upload_id: string; part: object }> {
  const { upload_id } = await (await postJson(r.id, "frame/uploads", { attempt: r.attempt })).json<{ upload_id: string }>();
  const part = await putPart(r.id, r.attempt, upload_id, new Uint8Array(64).fill(7));
  expect(part.status).toBe(200);
  return { upload_id, part: await part.json() };
}

/** The job's state as its object holds it: `attempts` used so far, and the watchdog's clock. */
async function patchState(r: Running, patch: (internal: any) => void) {
  await runInDurableObject(r.stub, async (instance: JobDO, state) => {
    const s: any = await state.storage.get("state");
    patch(s.internal);
    await state.storage.put("state", s);
    (instance as any).cache = null;
  });
}

const attemptsOf = async (r: Running) =>
  runInDurableObject(r.stub, async (_: JobDO, state) => ((await state.storage.get<any>("state")) as any).internal.attempts as number);

async function version(r: Running) {
  return env.DB.prepare("SELECT status, error_message, row_count FROM dataset_versions WHERE id = ?")
    .bind(r.versionId)
    .first<{ status: string; error_message: string | null; row_count: number | null }>();
}

/** The version is not `ready`, its dataset has no preview to show, and no frame is stored for it. */
async function expectNothingReady(r: Running, status: string) {
  expect(await version(r)).toMatchObject({ status });
  const v = await env.DB.prepare("SELECT dataset_id FROM dataset_versions WHERE id = ?").bind(r.versionId).first<{ dataset_id: string }>();
  expect((await json(`/datasets/${v!.dataset_id}/preview`, r.org)).status).toBe(409);
  expect(await env.BUCKET.head(await frameKeyOfVersion(r.versionId))).toBeNull();
}

describe("a trainer killed mid-ingest", () => {
  it("is restarted on the trainer's start notice; the lost attempt cannot complete its frame; the new attempt makes the version ready, whole", async () => {
    const r = await trainerIngest();
    const { upload_id, part } = await halfSentFrame(r);
    expect(await version(r)).toMatchObject({ status: "processing" });
    const started = await call("/internal/trainer/started", { method: "POST", headers: SECRET });
    expect(started.status).toBe(200);
    const late = await postJson(r.id, "frame/complete", { attempt: r.attempt, upload_id, parts: [part], bytes: 64 });
    expect(late.status).toBe(409);
    const end = await jobEnd(r.org, r.id);
    expect(end.status, end.error_message).toBe("succeeded");
    expect(await attemptsOf(r)).toBe(r.attempt + 1);
    expect(await version(r)).toMatchObject({ status: "ready", row_count: 5 });
  });

  it("fails on its last attempt with the reason, the version failed and no frame stored", async () => {
    const r = await trainerIngest();
    await halfSentFrame(r);
    await patchState(r, (i) => (i.attempts = 3));
    expect((await call("/internal/trainer/started", { method: "POST", headers: SECRET })).status).toBe(200);
    const job = (await json<any>(`/jobs/${r.id}`, r.org)).body;
    expect(job.status).toBe("failed");
    expect(job.error_message).toBe("The trainer process restarted and lost this job on attempt 3 of 3.");
    await expectNothingReady(r, "failed");
    expect((await version(r))!.error_message).toBe(job.error_message);
  });

  it("gone silent (a container lost without notice): the watchdog fails it on the last attempt", async () => {
    const r = await trainerIngest();
    await halfSentFrame(r);
    await patchState(r, (i) => {
      i.attempts = 3;
      i.lastHeartbeatMs = Date.now() - 3_600_000;
    });
    await runDurableObjectAlarm(r.stub);
    const job = (await json<any>(`/jobs/${r.id}`, r.org)).body;
    expect(job.status).toBe("failed");
    expect(job.error_message).toMatch(/^The worker stopped reporting for \d+ s on attempt 3 of 3\.$/);
    await expectNothingReady(r, "failed");
  });
});

describe("a trainer lost after storing its frame, before succeeding", () => {
  it("leaves the version not ready: frame and preview are never recorded or served, and the lost attempt cannot succeed", async () => {
    const r = await trainerIngest();
    const { upload_id, part } = await halfSentFrame(r);
    expect((await postJson(r.id, "frame/complete", { attempt: r.attempt, upload_id, parts: [part], bytes: 64 })).status).toBe(200);
    const preview = await call(`/internal/jobs/${r.id}/preview?attempt=${r.attempt}`, {
      method: "PUT",
      headers: { ...SECRET, "Content-Length": "3" },
      body: new Uint8Array([1, 2, 3]),
    });
    expect(preview.status).toBe(204);
    await patchState(r, (i) => {
      i.attempts = 3;
      i.lastHeartbeatMs = Date.now() - 3_600_000;
    });
    await runDurableObjectAlarm(r.stub);
    expect((await json<any>(`/jobs/${r.id}`, r.org)).body.status).toBe("failed");
    const late = await postJson(r.id, "succeed", { attempt: 3, output: { row_count: 5, summary: { rowCount: 5, profile: [] } } });
    expect(late.status).toBe(409);
    expect(await version(r)).toMatchObject({ status: "failed", row_count: null });
    const v = await env.DB.prepare("SELECT dataset_id FROM dataset_versions WHERE id = ?").bind(r.versionId).first<{ dataset_id: string }>();
    expect((await json(`/datasets/${v!.dataset_id}/preview`, r.org)).status).toBe(409);
  });
});

describe("the trainer reports a failed ingest", () => {
  it("bad data found deep in the file: failed at once with the trainer's message (line and byte), not retried", async () => {
    const r = await trainerIngest();
    const { upload_id, part } = await halfSentFrame(r);
    const message = "Line 40002 has 3 fields but the header has 2 columns (the record starts at byte 1234567). Check that line.";
    const fail = await postJson(r.id, "fail", { attempt: r.attempt, message, permanent: true });
    expect(fail.status).toBe(200);
    const job = (await json<any>(`/jobs/${r.id}`, r.org)).body;
    expect(job).toMatchObject({ status: "failed", error_message: message });
    expect(await attemptsOf(r)).toBe(r.attempt);
    expect((await postJson(r.id, "frame/complete", { attempt: r.attempt, upload_id, parts: [part], bytes: 64 })).status).toBe(409);
    await expectNothingReady(r, "failed");
    expect((await version(r))!.error_message).toBe(message);
  });

  it("a transient fault (a full disk) is retried: the next attempt succeeds", async () => {
    const r = await trainerIngest();
    await halfSentFrame(r);
    const fail = await postJson(r.id, "fail", { attempt: r.attempt, message: "ENOSPC: no space left on device, write", permanent: false });
    expect(fail.status).toBe(200);
    const end = await jobEnd(r.org, r.id);
    expect(end.status, end.error_message).toBe("succeeded");
    expect(await attemptsOf(r)).toBe(r.attempt + 1);
    expect(await version(r)).toMatchObject({ status: "ready", row_count: 5 });
  });

  it("a transient fault on the last attempt fails the job saying so", async () => {
    const r = await trainerIngest();
    await patchState(r, (i) => (i.attempts = 3));
    const fail = await postJson(r.id, "fail", { attempt: 3, message: "ENOSPC: no space left on device, write", permanent: false });
    expect(fail.status).toBe(200);
    const job = (await json<any>(`/jobs/${r.id}`, r.org)).body;
    expect(job).toMatchObject({ status: "failed", error_message: "The job failed after 3 attempts: ENOSPC: no space left on device, write" });
    await expectNothingReady(r, "failed");
  });
});
