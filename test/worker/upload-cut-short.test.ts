/**
 * A signed PUT through the Worker whose body ends before its Content-Length (the client's
 * connection lost mid-upload; a test request cannot lie about its length, so the upload service
 * is called with such a body): nothing is stored, the file stays pending, `complete` says it is
 * missing, and the same URL can be used again.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { DatasetDeps } from "../../src/datasets/deps";
import { receiveUpload } from "../../src/datasets/signed-upload";
import { createDb } from "../../src/db/client";
import { json, newOrg, prepareSigned, putSigned, SMALL_CSV, waitForJob } from "./helpers";

/** A body announced as `length` bytes that ends after `bytes` (fewer). */
function cutShort(bytes: Uint8Array, length: number): ReadableStream<Uint8Array> {
  const { readable, writable } = new FixedLengthStream(length);
  const writer = writable.getWriter();
  writer
    .write(bytes)
    .then(() => writer.close())
    .catch(() => undefined); // the stream errors: that is the point
  return readable;
}

describe("a signed PUT cut short", () => {
  it("stores nothing; complete says the file is missing; the URL works again", async () => {
    const org = await newOrg();
    const csv = new TextEncoder().encode(SMALL_CSV);
    const p = await prepareSigned(org, { bytes: csv.length });
    const token = new URL(p.upload.upload_url).pathname.replace("/uploads/", "");
    const deps = { db: createDb(env.DB), bucket: env.BUCKET, signingSecret: env.SIGNING_SECRET } as DatasetDeps;
    const put = receiveUpload(deps, token, { contentType: "text/csv", contentLength: csv.length, body: cutShort(csv.slice(0, 10), csv.length) });
    await expect(put).rejects.toThrow();
    const file = await env.DB.prepare("SELECT status, object_key FROM dataset_files WHERE dataset_version_id = ?")
      .bind(p.dataset.version_id)
      .first<{ status: string; object_key: string }>();
    expect(file!.status).toBe("pending");
    expect(await env.BUCKET.head(file!.object_key)).toBeNull();
    const early = await json<any>(`/datasets/${p.dataset.version_id}/complete`, org, { method: "POST" });
    expect(early.status).toBe(409);
    expect(early.body.detail).toMatch(/1 of 1 files have not been uploaded yet/);
    expect((await putSigned(p.upload.upload_url, csv)).status).toBe(200);
    expect((await json(`/datasets/${p.dataset.version_id}/complete`, org, { method: "POST" })).status).toBe(200);
    expect((await waitForJob(org, p.job_id)).status).toBe("succeeded");
  });
});
