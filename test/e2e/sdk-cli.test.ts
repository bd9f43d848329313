/**
 * The SDK and the `tabular` command against the local service, as a user runs them: upload
 * (direct and signed), wait for jobs with progress, train and wait, predict, explain; the CLI's
 * login file, --json output, errors as the API's detail and its exit codes.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ApiError, type Job, JobFailedError, TabularClient } from "../../sdk/src/index";
import { type RunningService, sharedService, table } from "./service";

let svc: RunningService;
let dir: string;

beforeAll(async () => {
  svc = await sharedService(inject("sharedService"), "sdk-cli");
  dir = mkdtempSync(join(tmpdir(), "tabular-cli-"));
}, 180_000);

afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the SDK", () => {
  it("uploads directly and through a signed URL, waits with progress, trains and predicts", async () => {
    const c = new TabularClient({ baseUrl: svc.base, apiKey: svc.key });
    const file = new File([table(200)], "churn.csv", { type: "text/csv" });
    const sent: number[] = [];
    const direct = await c.upload(file, { name: "sdk churn", onProgress: (n) => sent.push(n) });
    expect(direct.method).toBe("direct");
    expect(sent.at(-1)).toBeGreaterThan(file.size); // the multipart body: the file and its framing
    const seen: Job[] = [];
    const ingested = await c.waitForJob(direct.jobId, { onProgress: (j) => seen.push(j), intervalMs: 200 });
    expect(ingested.status).toBe("succeeded");
    expect(seen.length).toBeGreaterThan(0);

    const signedBytes: number[] = [];
    const signed = await c.upload(file, { datasetId: direct.datasetId, signed: true, onProgress: (n) => signedBytes.push(n) });
    expect(signed).toMatchObject({ method: "signed", datasetId: direct.datasetId, versionNumber: 2 });
    expect(signedBytes.at(-1)).toBe(file.size);
    expect((await c.waitForJob(signed.jobId, { intervalMs: 200 })).status).toBe("succeeded");

    const training = await c.train({
      model_name: "sdk model",
      model_type: "prediction",
      dataset_id: direct.datasetId,
      label_column: "churned",
      params: { max_rounds: 20 },
    });
    const steps: number[] = [];
    const trained = await training.wait({ onProgress: (j) => steps.push(j.current_step ?? 0), intervalMs: 200 });
    expect(trained.status).toBe("succeeded");
    expect(trained.metrics_history?.length).toBeGreaterThan(0);

    const r = await c.infer(training.model.id, new File(["usage,plan\n10,pro\n80,basic\n"], "rows.csv"));
    expect(r.kind).toBe("json");
    if (r.kind === "json") expect((r.result.data as { prediction: string[] }).prediction).toEqual(["yes", "yes"]);
    // Explained at once: the SDK waits for the sync job to be recorded.
    if (r.kind === "json") expect((await c.explain(r.result.job_id, [1], { intervalMs: 200 }))[0]).toMatchObject({ id: "1" });

    // Errors: the API's detail in an ApiError; a failed job in a JobFailedError.
    const missing = await c.call(c.api.GET("/models/{model_id}", { params: { path: { model_id: crypto.randomUUID() } } })).catch((e) => e);
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).toMatchObject({ status: 404, detail: "Not found" });
    const bad = await c.train({ model_name: "bad", model_type: "prediction", dataset_id: direct.datasetId, label_column: "nope" }).catch((e) => e);
    expect(bad).toMatchObject({ status: 422, detail: [{ loc: ["body", "label_column"] }] });
    const long = await c.train({
      model_name: "canceled",
      model_type: "prediction",
      dataset_id: direct.datasetId,
      label_column: "churned",
      params: { max_rounds: 2000 },
    });
    // Best effort: `canceled`, or how the job had already ended.
    const canceled = await c.call(c.api.POST("/jobs/{job_id}/cancel", { params: { path: { job_id: long.job_id } } }));
    if (canceled.status === "canceled") {
      const ended = await long.wait({ intervalMs: 200 }).catch((e) => e);
      expect(ended).toBeInstanceOf(JobFailedError);
      expect(ended.job.status).toBe("canceled");
    }
  });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI from its source, as `tabular ...` with its config under a temporary XDG_CONFIG_HOME. */
function tabular(args: string[], env: Record<string, string> = {}, input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ["--import", "tsx", "sdk/src/cli/main.ts", ...args],
      { env: { ...process.env, XDG_CONFIG_HOME: dir, TABULAR_BASE_URL: "", TABULAR_API_KEY: "", ...env }, timeout: 180_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin!.end(input);
    else child.stdin!.end();
  });
}

const ok = (r: Run) => {
  expect(r.code, r.stderr + r.stdout).toBe(0);
  return r;
};
const json = (r: Run) => JSON.parse(ok(r).stdout);

describe("the tabular command", () => {
  it("logs in, uploads, trains, predicts, explains, lists, and deletes", async () => {
    expect((await tabular(["datasets", "list"])).code).toBe(2); // not logged in yet
    // The key from standard input, as `echo $KEY | tabular login` does.
    const login = await tabular(["login", "--base-url", svc.base], {}, `${svc.key}\n`);
    expect(ok(login).stdout).toMatch(/Logged in to .* with key/);
    const saved = join(dir, "tabular-ml", "config.json");
    expect(JSON.parse(readFileSync(saved, "utf8"))).toEqual({ base_url: svc.base, api_key: svc.key });
    expect(statSync(saved).mode & 0o777).toBe(0o600);

    const csv = join(dir, "churn.csv");
    writeFileSync(csv, table(200));
    const up = json(await tabular(["--json", "datasets", "upload", csv, "--name", "cli churn"]));
    expect(up).toMatchObject({ method: "direct", job: { status: "succeeded" } });
    const human = ok(await tabular(["datasets", "list", "--search", "cli churn"])).stdout;
    expect(human).toMatch(/DATASET_ID\s+NAME/);
    expect(human).toContain(up.dataset_id);
    expect(json(await tabular(["datasets", "show", up.dataset_id, "--json"])).columns.map((c: { name: string }) => c.name)).toContain("plan");
    expect(json(await tabular(["datasets", "preview", up.dataset_id, "--limit", "3", "--json"])).rows).toHaveLength(3);

    const trained = json(
      await tabular(["models", "train", "--json", "-n", "cli model", "-d", up.dataset_id, "-l", "churned", "-p", "max_rounds=20", "-p", "seed=7"]),
    );
    expect(trained).toMatchObject({ job: { status: "succeeded" }, model: { status: "ready" } });
    const modelId = trained.model.model_id;
    expect(ok(await tabular(["models", "list"])).stdout).toContain(modelId);
    expect(json(await tabular(["models", "show", modelId, "--json"])).current_metrics.accuracy).toBeGreaterThan(0.8);

    const rows = join(dir, "rows.csv");
    writeFileSync(rows, "usage,plan\n10,pro\n80,basic\n");
    const pred = json(await tabular(["models", "infer", modelId, rows, "--json"]));
    expect(pred.data.prediction).toEqual(["yes", "yes"]);
    const out = join(dir, "pred.csv");
    ok(await tabular(["models", "infer", modelId, rows, "--format", "csv", "--output", out]));
    expect(readFileSync(out, "utf8").split("\n")[0]).toMatch(/^id,prediction/);
    const explained = json(await tabular(["models", "explain", modelId, rows, "--ids", "1", "--json"]));
    expect(explained.explanations[0]).toMatchObject({ id: "1" });

    const jobs = json(await tabular(["jobs", "list", "--model", modelId, "--json"]));
    expect(jobs.items.map((j: { type: string }) => j.type)).toContain("train");
    const trainJob = trained.job_id;
    expect(json(await tabular(["jobs", "show", trainJob, "--json"])).status).toBe("succeeded");
    expect(ok(await tabular(["jobs", "watch", trainJob])).stdout).toMatch(/succeeded/);

    // Cancel is best effort: a job that has already ended is answered with how it ended.
    expect(ok(await tabular(["jobs", "cancel", trainJob])).stdout).toMatch(/had already ended: succeeded/);
    // An API error: exit 1 with the API's detail, not a stack trace.
    const retry = await tabular(["jobs", "retry", trainJob]);
    expect(retry.code).toBe(1);
    expect(retry.stderr).toMatch(/^Error 409: Only failed jobs can be retried/);
    expect(retry.stderr).not.toMatch(/\bat .*\.ts:\d+/);
    const retryJson = await tabular(["--json", "jobs", "retry", trainJob]);
    expect(retryJson.code).toBe(1);
    expect(JSON.parse(retryJson.stderr)).toMatchObject({ status: 409, exit_code: 1 });
    const missing = await tabular(["models", "show", crypto.randomUUID()]);
    expect([missing.code, missing.stderr.trim()]).toEqual([1, "Error 404: Not found"]);
    // Usage errors: 2.
    expect((await tabular(["models", "train", "-n", "x"])).code).toBe(2);
    expect((await tabular(["datasets", "upload", join(dir, "nope.csv")])).code).toBe(2);
    expect((await tabular(["nonsense"])).code).toBe(2);
    // The environment wins over the file; an unreachable service is 4.
    expect((await tabular(["datasets", "list"], { TABULAR_BASE_URL: "http://127.0.0.1:9" })).code).toBe(4);
    expect((await tabular(["datasets", "list"], { TABULAR_API_KEY: "sk_wrong" })).code).toBe(1);

    // A job that ends canceled: watch exits 3 with the job's status.
    const queued = json(
      await tabular(["models", "train", "--json", "--no-wait", "-n", "long", "-d", up.dataset_id, "-l", "churned", "-p", "max_rounds=2000"]),
    );
    if ((await tabular(["jobs", "cancel", queued.job_id])).code === 0) {
      const watched = await tabular(["jobs", "watch", queued.job_id]);
      expect([watched.code, watched.stderr]).toEqual([3, expect.stringMatching(/canceled/)]);
    }
    const wrong = await tabular(["login", "--base-url", svc.base, "--api-key", "sk_not_a_key"]);
    expect([wrong.code, wrong.stderr.trim()]).toEqual([1, "Error 401: Not authenticated"]);
    expect(JSON.parse(readFileSync(saved, "utf8")).api_key).toBe(svc.key); // the good login kept

    // Keys: create (the secret once), list, revoke; a revoked key is refused.
    const made = json(await tabular(["--json", "keys", "create", "cli made"]));
    expect(made.key).toMatch(/^sk_/);
    expect(ok(await tabular(["keys", "list"])).stdout).toContain(made.prefix);
    expect(ok(await tabular(["keys", "list"], { TABULAR_API_KEY: made.key })).stdout).not.toContain(made.key);
    ok(await tabular(["keys", "revoke", made.id]));
    expect((await tabular(["datasets", "list"], { TABULAR_API_KEY: made.key })).code).toBe(1);

    ok(await tabular(["models", "rm", modelId]));
    ok(await tabular(["datasets", "rm", up.dataset_id]));
    expect((await tabular(["datasets", "show", up.dataset_id])).code).toBe(1);
  });

  it("the installed bin runs (built by npm install)", async () => {
    const r = await new Promise<Run>((resolve) =>
      execFile(process.execPath, ["sdk/bin/tabular.js", "--version"], (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr })),
    );
    expect(ok(r).stdout.trim()).toBe("0.1.0");
  });
});
