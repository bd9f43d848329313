/**
 * The warm inference path: a repeated sync inference with the same key and model makes no D1
 * query and no Durable Object call before its response (the job record is written after it);
 * a revoked key and a deleted model stop answering all the same.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { MODEL_CACHE_TTL_MS, PRINCIPAL_CACHE_TTL_MS } from "../../src/core/limits";
import worker from "../../src/index";
import { newOrg, type TestOrg } from "./helpers";
import { inferForm, readyDataset, trainAndWait } from "./model-helpers";

let org: TestOrg;
let modelId: string;

beforeAll(async () => {
  org = await newOrg();
  const ds = await readyDataset(org);
  const { started } = await trainAndWait(org, { dataset_id: ds.id, label_column: "churned", params: { max_rounds: 5 } });
  modelId = started.model.id;
}, 120_000);

afterEach(() => {
  vi.useRealTimers();
});

/** The env with D1 and the job objects wrapped to count every call made through them. */
function countingEnv() {
  const calls = { d1: 0, jobs: 0 };
  const d1Batches = { count: 0 };
  const counted = <T extends object>(target: T, bump: (method: string) => void): T =>
    new Proxy(target, {
      get(t, prop) {
        const v = Reflect.get(t, prop);
        if (typeof v !== "function") return v;
        return (...args: unknown[]) => {
          bump(String(prop));
          return (v as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    });
  const e = {
    ...env,
    DB: counted(env.DB, (method) => {
      calls.d1++;
      if (method === "batch") d1Batches.count++;
    }),
    JOB: counted(env.JOB, () => calls.jobs++),
  } as Env;
  return { e, calls, d1Batches };
}

async function infer(e: Env = env, key = org.key) {
  const ctx = createExecutionContext();
  const req = new Request(`https://api.test/models/${modelId}/infer`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}` },
    body: inferForm("usage,plan\n10,pro\n80,team\n"),
  });
  const res = await worker.fetch(req, e, ctx);
  const body = (await res.json()) as any;
  return { res, body, after: () => waitOnExecutionContext(ctx) };
}

describe("warm sync inference", () => {
  it("makes no D1 query and no Durable Object call before the response; the job is recorded after it", async () => {
    await (await infer()).after(); // warms the key, the model, the artifact and the session
    const { e, calls } = countingEnv();
    const { res, body, after } = await infer(e);
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(calls).toEqual({ d1: 0, jobs: 0 });
    await after();
    expect(calls.d1).toBeGreaterThan(0); // the infer_sync job record, written after the response
    const job = await worker.fetch(
      new Request(`https://api.test/jobs/${body.job_id}`, { headers: { Authorization: `Bearer ${org.key}` } }),
      env,
      createExecutionContext(),
    );
    expect(job.status).toBe(200);
  });

  it("records a burst of calls' jobs in one D1 batch, every one of them readable with its results", async () => {
    await (await infer()).after();
    const { e, calls, d1Batches } = countingEnv();
    // setTimeout held still: the three answers are all out before the write that carries them
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    const burst = await Promise.all([infer(e), infer(e), infer(e)]);
    for (const { res, body } of burst) expect(res.status, JSON.stringify(body)).toBe(200);
    expect(calls).toEqual({ d1: 0, jobs: 0 });
    await vi.advanceTimersByTimeAsync(1000);
    vi.useRealTimers();
    await Promise.all(burst.map((call) => call.after()));
    expect(d1Batches.count).toBe(1);
    for (const { body } of burst) {
      const headers = { Authorization: `Bearer ${org.key}` };
      const job = await worker.fetch(new Request(`https://api.test/jobs/${body.job_id}`, { headers }), env, createExecutionContext());
      expect(job.status).toBe(200);
      expect(((await job.json()) as any).status).toBe("succeeded");
      const results = await worker.fetch(
        new Request(`https://api.test/jobs/${body.job_id}/results?format=csv`, { headers }),
        env,
        createExecutionContext(),
      );
      expect(results.status).toBe(200);
      expect((await results.text()).trim().split("\n")).toHaveLength(3); // header + the two rows
    }
  });

  it("a revoked key stops working once its cache entry expires", async () => {
    expect((await infer()).res.status).toBe(200);
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").bind(new Date().toISOString(), org.apiKeyId).run();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + PRINCIPAL_CACHE_TTL_MS + 1000);
    expect((await infer()).res.status).toBe(401);
  });
});

describe("a deleted model", () => {
  it("stops answering at once in the isolate that deleted it, and elsewhere once the cache entry expires", async () => {
    const other = await newOrg();
    const ds = await readyDataset(other);
    const { started } = await trainAndWait(other, { dataset_id: ds.id, label_column: "churned", params: { max_rounds: 3 } });
    const call = (method: string, path: string, body?: FormData) =>
      worker.fetch(
        new Request(`https://api.test${path}`, { method, headers: { Authorization: `Bearer ${other.key}` }, body }),
        env,
        createExecutionContext(),
      );
    const rows = () => inferForm("usage,plan\n10,pro\n");
    expect((await call("POST", `/models/${started.model.id}/infer`, rows())).status).toBe(200);
    expect((await call("DELETE", `/models/${started.model.id}`)).status).toBe(204);
    expect((await call("POST", `/models/${started.model.id}/infer`, rows())).status).toBe(404);

    // Deleted behind this isolate's back (as by another isolate): seen once the entry expires.
    const { started: second } = await trainAndWait(other, { dataset_id: ds.id, label_column: "churned", params: { max_rounds: 3 } });
    expect((await call("POST", `/models/${second.model.id}/infer`, rows())).status).toBe(200);
    await env.DB.batch([
      env.DB.prepare("DELETE FROM model_versions WHERE model_id = ?").bind(second.model.id),
      env.DB.prepare("DELETE FROM models WHERE id = ?").bind(second.model.id),
    ]);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + MODEL_CACHE_TTL_MS + 1000);
    expect((await call("POST", `/models/${second.model.id}/infer`, rows())).status).toBe(404);
  }, 120_000);
});
