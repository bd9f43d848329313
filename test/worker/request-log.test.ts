/** Every answer carries X-Request-Id; each request is logged as a JSON line and counted in Analytics Engine. */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, newOrg, undispatchedIngestJob } from "./helpers";
import { inferForm, orgWithModel } from "./model-helpers";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The JSON lines the Worker logged (console.log) while `run` ran. */
async function logged(run: () => Promise<unknown>): Promise<any[]> {
  const spy = vi.spyOn(console, "log");
  try {
    await run();
    return spy.mock.calls.flatMap(([line]) => (typeof line === "string" && line.startsWith("{") ? [JSON.parse(line)] : []));
  } finally {
    spy.mockRestore();
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("request ids", () => {
  it("gives an answer a new id", async () => {
    const res = await call("/health");
    expect(res.headers.get("X-Request-Id")).toMatch(UUID);
  });

  it("echoes the client's own id", async () => {
    const res = await call("/health", { headers: { "X-Request-Id": "client-req_42.a=" } });
    expect(res.headers.get("X-Request-Id")).toBe("client-req_42.a=");
  });

  it("replaces an id that could not go into a log as is", async () => {
    const res = await call("/health", { headers: { "X-Request-Id": "two words\n" } });
    expect(res.headers.get("X-Request-Id")).toMatch(UUID);
  });

  it("carries one on errors too", async () => {
    for (const res of [await call("/datasets"), await call("/no/such/route"), await call("/health", { method: "DELETE" })]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.headers.get("X-Request-Id")).toMatch(UUID);
    }
  });
});

describe("request log lines", () => {
  it("log the request id, route, status, duration and organization", async () => {
    const org = await newOrg();
    let res: Response | undefined;
    const lines = await logged(async () => {
      res = await call("/datasets?limit=1", { headers: { ...org.auth, "X-Request-Id": "log-line-1" } });
    });
    expect(res?.status).toBe(200);
    const line = lines.find((l) => l.request_id === "log-line-1");
    expect(line).toMatchObject({ msg: "request", method: "GET", route: "/datasets", status: 200, organization: org.orgId, job_id: null });
    expect(line.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it("name the job a request is about", async () => {
    const org = await newOrg();
    const { jobId } = await undispatchedIngestJob(org);
    const lines = await logged(() => call(`/jobs/${jobId}`, { headers: { ...org.auth, "X-Request-Id": "log-line-2" } }));
    expect(lines.find((l) => l.request_id === "log-line-2")).toMatchObject({ route: "/jobs/:job_id", job_id: jobId });
  });

  it("name the job a request created", async () => {
    const org = await newOrg();
    const form = new FormData();
    form.append("file", new File(["a,b\n1,2\n3,4\n"], "log.csv", { type: "text/csv" }));
    form.append("dataset_name", "log line");
    let created: any;
    const lines = await logged(async () => {
      created = await (await call("/datasets", { method: "POST", body: form, headers: { ...org.auth, "X-Request-Id": "log-line-3" } })).json();
    });
    expect(lines.find((l) => l.request_id === "log-line-3")).toMatchObject({ route: "/datasets", status: 201, job_id: created.job_id });
  });

  it("name the job of a sync inference", async () => {
    const { org, modelId } = await orgWithModel();
    let answer: any;
    const lines = await logged(async () => {
      const headers = { ...org.auth, "X-Request-Id": "log-line-4" };
      answer = await (await call(`/models/${modelId}/infer`, { method: "POST", body: inferForm("usage,plan\n42,pro\n"), headers })).json();
    });
    expect(lines.find((l) => l.request_id === "log-line-4")).toMatchObject({ route: "/models/:model_id/infer", status: 200, job_id: answer.job_id });
  }, 120_000);
});

describe("metrics", () => {
  it("count a request in Analytics Engine", async () => {
    const write = vi.spyOn(env.METRICS, "writeDataPoint");
    await call("/health", { headers: { "X-Request-Id": "metric-1" } });
    expect(write).toHaveBeenCalledWith({ indexes: [""], blobs: ["request", "GET", "/health", "200"], doubles: [expect.any(Number), 200] });
  });
});

describe("job metrics", () => {
  it("count a job's end once, with its type, outcome and attempts", async () => {
    const org = await newOrg();
    const { stub, jobId } = await undispatchedIngestJob(org);
    const write = vi.spyOn(env.METRICS, "writeDataPoint");
    const lines = await logged(async () => {
      const { attempt } = await stub.begin({ messageId: `metric-job-${jobId}` });
      await stub.fail("bad data", attempt);
      await stub.cancel();
    });
    // this test's organization only: other tests' jobs may end meanwhile (the queue runs them)
    const jobPoints = write.mock.calls.filter(([p]) => p?.blobs?.[0] === "job" && p.indexes?.[0] === org.orgId);
    expect(jobPoints).toEqual([[{ indexes: [org.orgId], blobs: ["job", "dataset_ingest", "failed"], doubles: [expect.any(Number), 1] }]]);
    expect(lines.filter((l) => l.msg === "job finished" && l.job_id === jobId)).toEqual([
      expect.objectContaining({ organization: org.orgId, status: "failed", attempts: 1, error: "bad data" }),
    ]);
  });
});
