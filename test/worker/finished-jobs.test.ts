/** Jobs recorded after the response in one batch: one bad record does not lose the others. */
import { env } from "cloudflare:workers";
import { expect, it, vi } from "vitest";
import { createDb } from "../../src/db/client";
import { writeFinishedJobs } from "../../src/jobs/finished-jobs";
import { finishedJobRecord } from "../../src/jobs/service";
import { newOrg } from "./helpers";

it("writes a batch's good records even when one of them cannot be written", async () => {
  const org = await newOrg();
  const principal = { orgId: org.orgId, apiKeyId: org.apiKeyId, userId: null, actorName: "test key" };
  const job = (orgId = org.orgId) => ({ job: finishedJobRecord({ ...principal, orgId }, { status: "succeeded", type: "infer_sync" }) });
  const good = [job(), job()];
  const orphan = job(crypto.randomUUID()); // no such organization: the foreign key refuses it
  const logged = vi.spyOn(console, "error").mockImplementation(() => {});
  try {
    await writeFinishedJobs(createDb(env.DB), [good[0], orphan, good[1]]);
    expect(logged.mock.calls.map((c) => String(c[0]))).toEqual([`recording job ${orphan.job.id} failed`]);
  } finally {
    logged.mockRestore();
  }
  const stored = await env.DB.prepare("SELECT id, status FROM jobs WHERE id IN (?, ?, ?)")
    .bind(good[0].job.id, orphan.job.id, good[1].job.id)
    .all<{ id: string; status: string }>();
  expect(new Set(stored.results.map((r) => r.id))).toEqual(new Set([good[0].job.id, good[1].job.id]));
  expect(stored.results.every((r) => r.status === "succeeded")).toBe(true);
});
