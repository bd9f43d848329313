import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Principal } from "../../src/auth/principal";
import { createVersion, orDiscard } from "../../src/datasets/records";
import { createDb } from "../../src/db/client";
import { expect422, json, newOrg, putSigned, sha256Hex, type TestOrg, waitForJob } from "./helpers";

const enc = (s: string) => new TextEncoder().encode(s);

async function batchWithOneBadFile(org: TestOrg) {
  const good = "a,b\n1,2\n";
  const bad = "a,b\n3,4\n";
  const r = await json("/api/datasets/batch", org, {
    method: "POST",
    body: {
      dataset_name: "partial",
      files: [
        { filename: "good.csv", bytes: enc(good).length, content_type: "text/csv", checksum_sha256: await sha256Hex(good) },
        { filename: "bad.csv", bytes: enc(bad).length, content_type: "text/csv", checksum_sha256: await sha256Hex("other") },
      ],
    },
  });
  await putSigned(r.body.uploads[0].upload_url, enc(good));
  await putSigned(r.body.uploads[1].upload_url, enc(bad));
  await json(`/api/datasets/${r.body.dataset_version_id}/complete`, org, { method: "POST" });
  return r.body as { job_id: string; dataset_id: string };
}

describe("upload integrity", () => {
  it("a retried ingest of a batch with a failed file fails again instead of ingesting part of it", async () => {
    const org = await newOrg();
    const batch = await batchWithOneBadFile(org);
    const retry = await json(`/jobs/${batch.job_id}/retry`, org, { method: "POST" });
    const job = await waitForJob(org, retry.body.job_id);
    expect(job.status).toBe("failed");
    expect(job.error_message).toContain("1 of 2 files of this dataset version were not uploaded intact (bad.csv)");
    const versions = await json(`/datasets/${batch.dataset_id}/versions`, org);
    expect(versions.body.items[0].status).toBe("failed");
  });

  it("refuses at preparation an upload too large to ingest, instead of failing after it", async () => {
    const org = await newOrg();
    const r = await json("/datasets/upload", org, {
      method: "POST",
      body: { dataset_name: "huge", file: { filename: "huge.csv", bytes: 40 * 1024 * 1024, content_type: "text/csv" } },
    });
    const [item] = expect422(r);
    expect(item.loc).toEqual(["body", "file", "bytes"]);
    expect(item.msg).toMatch(/over 32 MB in total are ingested by the trainer container, which this deployment does not provide/);
    expect((await json("/datasets?search=huge", org)).body.items).toHaveLength(0);
  });

  it("discards the version, its files and a new dataset when a step after creating them fails", async () => {
    const org = await newOrg();
    const db = createDb(env.DB);
    const principal: Principal = { orgId: org.orgId, apiKeyId: org.apiKeyId, userId: null, actorName: "t" };
    const created = await createVersion(
      db,
      principal,
      { name: "doomed" },
      { status: "queued", sourceFilename: "d.csv", contentType: "text/csv", format: "csv", sizeBytes: 3 },
    );
    const key = `orgs/${org.orgId}/datasets/${created.dataset.id}/versions/${created.version.id}/source/x/d.csv`;
    await expect(
      orDiscard(db, env.BUCKET, created, async () => {
        await env.BUCKET.put(key, "a,b");
        throw new Error("queue unavailable");
      }),
    ).rejects.toThrow("queue unavailable");
    expect(await env.BUCKET.head(key)).toBeNull();
    expect(await env.DB.prepare("SELECT id FROM dataset_versions WHERE id = ?").bind(created.version.id).first()).toBeNull();
    expect(await env.DB.prepare("SELECT id FROM datasets WHERE id = ?").bind(created.dataset.id).first()).toBeNull();
  });
});

describe("Idempotency-Key reservations", () => {
  async function reserve(org: TestOrg, key: string, ageMs: number) {
    await env.DB.prepare(
      "INSERT INTO idempotency_keys (org_id, key, route, status_code, response_json, created_at) VALUES (?, ?, 'POST /datasets', 0, 'null', ?)",
    )
      .bind(org.orgId, key, new Date(Date.now() - ageMs).toISOString())
      .run();
  }

  it("answers 409 while a recent request with the same key is in progress", async () => {
    const org = await newOrg();
    await reserve(org, "k-recent", 1000);
    const form = new FormData();
    form.append("file", new File(["a,b\n1,2\n"], "d.csv", { type: "text/csv" }));
    form.append("dataset_name", "again");
    const r = await json("/datasets", org, { method: "POST", body: form, headers: { "Idempotency-Key": "k-recent" } });
    expect(r.status).toBe(409);
  });

  it("takes over a reservation whose request died long ago", async () => {
    const org = await newOrg();
    await reserve(org, "k-abandoned", 10 * 60_000);
    const form = new FormData();
    form.append("file", new File(["a,b\n1,2\n"], "d.csv", { type: "text/csv" }));
    form.append("dataset_name", "taken over");
    const r = await json("/datasets", org, { method: "POST", body: form, headers: { "Idempotency-Key": "k-abandoned" } });
    expect(r.status).toBe(201);
  });
});
