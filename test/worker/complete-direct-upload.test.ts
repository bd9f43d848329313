/**
 * `complete` after files were PUT straight to R2 (presigned URLs; here written to the bucket
 * directly, as R2 would store them): what arrived is checked against what was declared.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { json, newOrg, sha256Hex, type TestOrg, waitForJob } from "./helpers";

const CSV = "a,b,label\n1,2,x\n3,4,y\n5,6,x\n7,8,y\n";

async function prepare(org: TestOrg, file: Record<string, unknown>) {
  const r = await json<any>("/api/datasets/batch", org, {
    method: "POST",
    body: {
      dataset_name: `direct ${crypto.randomUUID()}`,
      files: [{ filename: "d.csv", bytes: CSV.length, content_type: "text/csv", checksum_sha256: await sha256Hex(CSV), ...file }],
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

const complete = (org: TestOrg, versionId: string) => json<any>(`/datasets/${versionId}/complete`, org, { method: "POST" });

describe("complete checks files that went straight to R2", () => {
  it("ingests a file of the declared size, type and checksum", async () => {
    const org = await newOrg();
    const p = await prepare(org, {});
    await env.BUCKET.put(p.uploads[0].object_name, CSV, { httpMetadata: { contentType: "text/csv" } });
    const done = await complete(org, p.dataset_version_id);
    expect(done.body.counts).toEqual({ expected: 1, uploaded: 1, failed: 0 });
    expect((await waitForJob(org, p.job_id)).status).toBe("succeeded");
  });

  it("says a file is missing while it is not in the bucket", async () => {
    const org = await newOrg();
    const p = await prepare(org, {});
    const early = await complete(org, p.dataset_version_id);
    expect(early.status).toBe(409);
    expect(early.body.detail).toMatch(/1 of 1 files have not been uploaded yet: d.csv/);
  });

  it.each([
    ["another size", `${CSV}9,9,x\n`, "text/csv", {}, /is \d+ bytes but \d+ bytes were declared/],
    ["fewer bytes than declared", CSV.slice(0, -6), "text/csv", {}, new RegExp(`is ${CSV.length - 6} bytes but ${CSV.length} bytes were declared`)],
    ["another content type", CSV, "text/plain", {}, /arrived as 'text\/plain' but 'text\/csv' was declared/],
    ["another SHA-256", CSV, "text/csv", { checksum_sha256: "0".repeat(64) }, /SHA-256 mismatch/],
  ])("fails the ingest for %s, and deletes the object", async (_what, body, type, extra, message) => {
    const org = await newOrg();
    const p = await prepare(org, extra);
    await env.BUCKET.put(p.uploads[0].object_name, body, { httpMetadata: { contentType: type } });
    const done = await complete(org, p.dataset_version_id);
    expect(done.status).toBe(200);
    expect(done.body.counts).toEqual({ expected: 1, uploaded: 0, failed: 1 });
    const job = await waitForJob(org, p.job_id);
    expect(job.status).toBe("failed");
    expect(job.error_message).toMatch(message);
    expect(await env.BUCKET.head(p.uploads[0].object_name)).toBeNull();
  });
});
