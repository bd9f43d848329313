import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { jobObject } from "../../src/jobs/job-object";
import type { JobRecord } from "../../src/jobs/types";
import { json, newOrg, type TestOrg, upload, uuidOfPublicJobId } from "./helpers";

/** Poll a job until it ends (usable in beforeAll, where expect.poll is not). */
export async function jobEnd(org: TestOrg, jobId: string, timeoutMs = 45_000) {
  const end = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < end) {
    last = (await json(`/jobs/${jobId}`, org)).body;
    if (["succeeded", "failed", "canceled", "rejected"].includes(last?.status)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`job ${jobId} did not end within ${timeoutMs} ms: ${JSON.stringify(last)}`);
}

/**
 * A small table a GBDT learns exactly: `churned` is "yes" when usage < 30 or plan is "basic";
 * `spend` is a clean function of usage and plan (for regression). Deterministic.
 */
export function churnCsv(rows = 240): string {
  const plans = ["basic", "pro", "team"];
  const lines = ["customer,usage,plan,region,spend,churned"];
  for (let i = 0; i < rows; i++) {
    const usage = (i * 37) % 100;
    const plan = plans[i % 3];
    const region = ["north", "south"][(i >> 2) % 2];
    const spend = usage * 2 + (plan === "team" ? 100 : plan === "pro" ? 50 : 0);
    const churned = usage < 30 || plan === "basic" ? "yes" : "no";
    lines.push(`c${i},${usage},${plan},${region},${spend},${churned}`);
  }
  return `${lines.join("\n")}\n`;
}

/** Upload a table and wait until its version is ready. */
export async function readyDataset(org: TestOrg, csv = churnCsv(), name = "churn") {
  const up = await upload(org, csv, { dataset_name: name });
  const job = await jobEnd(org, up.job_id);
  expect(job.status, job.error_message).toBe("succeeded");
  return up.dataset;
}

interface Trained {
  model: { id: string; version_id: string; version_number: number };
  job_id: string;
  status: string;
  service_runtime_version: string;
}

export async function startTrain(org: TestOrg, body: Record<string, unknown>) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return json<any>("/models/train", org, { method: "POST", body: { model_name: "churn model", model_type: "prediction", ...body } });
}

/** Train and wait for the job to end; returns the start response and the final job detail. */
export async function trainAndWait(org: TestOrg, body: Record<string, unknown>, timeoutMs = 45_000) {
  const r = await startTrain(org, body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const job = await jobEnd(org, r.body.job_id, timeoutMs);
  return { started: r.body as Trained, job };
}

/** A fresh organization with a small prediction model trained on the churn table. */
export async function orgWithModel(maxRounds = 3): Promise<{ org: TestOrg; modelId: string }> {
  const org = await newOrg();
  const ds = await readyDataset(org);
  const { started } = await trainAndWait(org, { dataset_id: ds.id, label_column: "churned", params: { max_rounds: maxRounds } });
  return { org, modelId: started.model.id };
}

export function inferForm(content: string | Uint8Array, fields: Record<string, string> = {}, filename = "rows.csv", type = "text/csv"): FormData {
  const form = new FormData();
  form.append("file", new File([content], filename, { type }));
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return form;
}

/**
 * A running copy of a finished job under a new id, begun by hand so that no queue consumer takes
 * it (what a trainer, or a consumer mid-run, would hold): its id and attempt token.
 */
export async function runningCopy(publicJobId: string): Promise<{ id: string; attempt: number; record: JobRecord }> {
  const source = (await jobObject(env.JOB, uuidOfPublicJobId(publicJobId)).get()) as JobRecord;
  const id = crypto.randomUUID();
  const obj = jobObject(env.JOB, id);
  await obj.create({ ...source, id, status: "queued", output: null, progress: 0, startedAt: null, finishedAt: null, errorMessage: null });
  const { attempt, job } = await obj.begin({ messageId: crypto.randomUUID() });
  expect(job?.status).toBe("running");
  return { id, attempt, record: source };
}
