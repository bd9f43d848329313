/**
 * Batch inference through the internal control routes, as the trainer runs it: a running
 * infer_batch job (a copy of one the queue ran, begun by hand so no consumer takes it) is driven
 * over the routes with the shared runner, and answers what the Worker's own run answered.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { JobDO } from "../../src/durable/job";
import { runBatchInference } from "../../src/inference/batch-run";
import type { StoredVersion } from "../../src/inference/model-runtime";
import { withSession } from "../../src/inference/session-cache";
import { jobObject } from "../../src/jobs/job-object";
import type { JobRecord } from "../../src/jobs/types";
import { resultPageName } from "../../src/storage/keys";
import { call, json, newOrg, type TestOrg, uuidOfPublicJobId } from "./helpers";
import { jobEnd, readyDataset, runningCopy, trainAndWait } from "./model-helpers";

const SECRET = { Authorization: "Bearer test-internal-secret" };

let org: TestOrg;
let done: JobRecord;
let doneId: string;

beforeAll(async () => {
  org = await newOrg();
  const ds = await readyDataset(org);
  const { started } = await trainAndWait(org, { dataset_id: ds.id, label_column: "churned", params: { max_rounds: 5 } });
  const r = await json<any>(`/models/${started.model.id}/infer-batch`, org, { method: "POST", body: { dataset_id: ds.id, output_type: "csv" } });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  const end = await jobEnd(org, r.body.id);
  expect(end.status, end.error_message).toBe("succeeded");
  doneId = r.body.id;
  done = (await jobObject(env.JOB, uuidOfPublicJobId(doneId)).get()) as JobRecord;
}, 120_000);

/** A fresh running copy of the finished job: its id and the attempt token a trainer would hold. */
const runningBatch = () => runningCopy(doneId);

const get = (id: string, path: string, attempt: number) => call(`/internal/jobs/${id}/${path}?attempt=${attempt}`, { headers: SECRET });
const put = (id: string, path: string, attempt: number, body: BodyInit) =>
  call(`/internal/jobs/${id}/${path}?attempt=${attempt}`, { method: "PUT", headers: SECRET, body });

describe("an infer_batch job in the trainer", () => {
  it("gets its task, the dataset's rows and the model version's files", async () => {
    const { id, attempt } = await runningBatch();
    const task = await (await get(id, "task", attempt)).json<any>();
    expect(task).toMatchObject({
      kind: "infer_batch",
      task: { model_type: "prediction", output_type: "csv", model_version: { id: done.modelVersionId } },
    });
    const frame = await get(id, "frame", attempt);
    expect(frame.status).toBe(200);
    expect((await frame.arrayBuffer()).byteLength).toBeGreaterThan(100);
    const featurizer = await get(id, "artifacts/featurizer.json", attempt);
    expect(featurizer.status).toBe(200);
    expect(await featurizer.json<any>()).toMatchObject({ model_type: "prediction" });
    expect((await get(id, "artifacts/evil.js", attempt)).status).toBe(404);
    // a training job's routes stay closed to it
    expect((await get(id, "representation", attempt)).status).toBe(404);
  });

  it("stores the results and succeeds; they read back as the Worker's run wrote them", async () => {
    const { id, attempt } = await runningBatch();
    const task = await (await get(id, "task", attempt)).json<any>();
    const { decodeFrame } = await import("../../src/ingest/columnar");
    const frame = decodeFrame(new Uint8Array(await (await get(id, "frame", attempt)).arrayBuffer()));
    const version: StoredVersion = { id: task.task.model_version.id, version: task.task.model_version.version, artifactKey: null };
    const progress: number[] = [];
    const stored = await runBatchInference(
      {
        runtime: {
          readFile: async (_v, file) => {
            const r = await get(id, `artifacts/${file}`, attempt);
            return r.ok ? new Uint8Array(await r.arrayBuffer()) : null;
          },
          withSession,
        },
        sink: {
          putPage: async (page, text) => void expect((await put(id, `results/${resultPageName(page)}`, attempt, text)).status).toBe(204),
          putFile: async (format, body) => void expect((await put(id, `results/results.${format}`, attempt, body)).status).toBe(204),
        },
        report: async (p) => void progress.push(p),
      },
      version,
      frame,
    );
    expect(progress.at(-1)).toBe(80);
    const ok = await call(`/internal/jobs/${id}/succeed`, {
      method: "POST",
      headers: { ...SECRET, "Content-Type": "application/json" },
      body: JSON.stringify({ attempt, output: { ...stored, output_type: "csv", model_version_id: version.id, seconds: 0.1 } }),
    });
    expect(ok.status).toBe(200);
    const detail = await json<any>(`/jobs/${id}`, org);
    expect(detail.body).toMatchObject({ status: "succeeded", output: { rows: 240 } });
    const mine = await call(`/jobs/${id}/results?format=csv`, { headers: org.auth });
    const theirs = await call(`/jobs/${done.id}/results?format=csv`, { headers: org.auth });
    expect(mine.status).toBe(200);
    expect(await mine.text()).toBe(await theirs.text());
  });

  it("refuses result names outside the job's layout", async () => {
    const { id, attempt } = await runningBatch();
    for (const name of ["evil.json", "page-1.json", "results.exe", "..%2Fx"]) {
      expect((await put(id, `results/${name}`, attempt, "x")).status, name).toBe(404);
    }
  });

  it("stops the trainer (409) once the job is canceled, and with a stale attempt", async () => {
    const { id, attempt } = await runningBatch();
    expect((await get(id, "frame", attempt + 1)).status).toBe(409);
    const c = await json(`/jobs/${id}/cancel`, org, { method: "POST" });
    expect(c.status).toBe(200);
    expect((await get(id, "frame", attempt)).status).toBe(409);
    expect((await put(id, `results/${resultPageName(0)}`, attempt, "{}")).status).toBe(409);
  });

  it("is restarted at once when the trainer process says it started again (and fails on its last attempt)", async () => {
    const lost = await runningBatch();
    const last = await runningBatch();
    const stub = env.JOB.get(env.JOB.idFromName(last.id)) as DurableObjectStub<JobDO>;
    await runInDurableObject(stub, async (instance: JobDO, state) => {
      const s: any = await state.storage.get("state");
      s.internal.attempts = 3;
      await state.storage.put("state", s);
      (instance as any).cache = null;
    });
    const r = await call("/internal/trainer/started", { method: "POST", headers: SECRET });
    expect(r.status).toBe(200);
    expect(((await r.json()) as any).restarted).toBeGreaterThanOrEqual(2);
    // the restarted one runs again (here in the Worker's consumer) and succeeds
    const again = await jobEnd(org, lost.id);
    expect(again.status, again.error_message).toBe("succeeded");
    const failed = (await json<any>(`/jobs/${last.id}`, org)).body;
    expect(failed.status).toBe("failed");
    expect(failed.error_message).toMatch(/The trainer process restarted and lost this job on attempt 3 of 3/);
    expect((await call("/internal/trainer/started", { method: "POST" })).status).toBe(401);
  });
});
