import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { signUploadToken } from "../../src/storage/signed-upload";
import {
  call,
  expect422,
  json,
  newOrg,
  prepareSigned,
  putSigned,
  SIMPLE_PARQUET,
  SMALL_CSV,
  sha256Hex,
  signedIngest,
  upload,
  waitForJob,
} from "./helpers";

const enc = (s: string) => new TextEncoder().encode(s);
const complete = (org: Awaited<ReturnType<typeof newOrg>>, versionId: string, prefix = "") =>
  json(`${prefix}/datasets/${versionId}/complete`, org, { method: "POST" });

describe("signed-URL upload: prepare, PUT, complete", () => {
  it("prepare answers an upload URL on this service and a version waiting for its file", async () => {
    const org = await newOrg();
    const p = await prepareSigned(org, { bytes: 123 });
    expect(p.upload.upload_url).toMatch(/^https:\/\/api\.test\/uploads\/[\w-]+\.[\w-]+$/);
    expect(p.dataset).toMatchObject({ version_number: 1, archived: false });
    expect(p.status).toBe("waiting_for_upload");
    const job = await json(`/jobs/${p.job_id}`, org);
    expect(job.body).toMatchObject({ status: "waiting_for_upload", type: "dataset_ingest", credits_consumed: null });
  });

  it("PUT then complete triggers ingestion, with counts, and the job succeeds", async () => {
    const org = await newOrg();
    const bytes = enc(SMALL_CSV);
    const p = await prepareSigned(org, { bytes: bytes.length });
    const put = await putSigned(p.upload.upload_url, bytes);
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ bytes: bytes.length, status: "uploaded" });
    const done = await complete(org, p.dataset.version_id);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({
      dataset_id: p.dataset.id,
      dataset_version_id: p.dataset.version_id,
      job_id: p.job_id,
      status: "queued",
      counts: { expected: 1, uploaded: 1, failed: 0 },
    });
    const job = await waitForJob(org, p.job_id);
    expect(job.status).toBe("succeeded");
    const d = await json(`/datasets/${p.dataset.id}`, org);
    expect(d.body.current_version).toMatchObject({ status: "ready", row_count: 4, column_count: 4 });
  });

  it("ingests a Parquet file sent through the signed URL", async () => {
    const org = await newOrg();
    const type = "application/vnd.apache.parquet";
    const p = await prepareSigned(org, { filename: "simple.parquet", bytes: SIMPLE_PARQUET.length, content_type: type });
    expect((await putSigned(p.upload.upload_url, SIMPLE_PARQUET, type)).status).toBe(200);
    expect((await complete(org, p.dataset.version_id)).body.counts).toEqual({ expected: 1, uploaded: 1, failed: 0 });
    const job = await waitForJob(org, p.job_id);
    expect(job.error_message).toBeNull();
    const d = await json(`/datasets/${p.dataset.id}`, org);
    expect(d.body.current_version).toMatchObject({ status: "ready", row_count: 3, column_count: 2 });
  });

  it("prepare with dataset_id adds a version to an existing dataset", async () => {
    const org = await newOrg();
    const first = await upload(org, SMALL_CSV);
    const p = await prepareSigned(org, { bytes: 10 }, { dataset_id: first.dataset.id, dataset_name: undefined });
    expect(p.dataset).toMatchObject({ id: first.dataset.id, version_number: 2 });
  });

  it("batch: two CSVs with correct checksums become one version with the rows of both", async () => {
    const org = await newOrg();
    const files = ["a,b\n1,x\n2,y\n", "a,b\n3,z\n4,x\n5,y\n"];
    const r = await json("/api/datasets/batch", org, {
      method: "POST",
      body: {
        dataset_name: "two parts",
        files: await Promise.all(
          files.map(async (f, i) => ({
            filename: `part${i}.csv`,
            bytes: enc(f).length,
            content_type: "text/csv",
            checksum_sha256: await sha256Hex(f),
          })),
        ),
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.uploads).toHaveLength(2);
    for (const u of r.body.uploads) {
      expect(Object.keys(u)).toEqual(expect.arrayContaining(["file_id", "filename", "bytes", "content_type", "upload_url", "bucket", "object_name"]));
    }
    for (const [i, u] of r.body.uploads.entries()) expect((await putSigned(u.upload_url, enc(files[i]))).status).toBe(200);
    const done = await complete(org, r.body.dataset_version_id, "/api");
    expect(done.body).toMatchObject({ dataset_id: r.body.dataset_id, job_id: r.body.job_id, counts: { expected: 2, uploaded: 2, failed: 0 } });
    const job = await waitForJob(org, r.body.job_id);
    expect(job.error_message).toBeNull();
    const d = await json(`/datasets/${r.body.dataset_id}`, org);
    expect(d.body.current_version).toMatchObject({ version_number: 1, status: "ready", row_count: 5, column_count: 2 });
    const rows = await json(`/datasets/${r.body.dataset_id}/preview?limit=10`, org);
    expect(rows.body.rows.map((row: any) => row.a)).toEqual([1, 2, 3, 4, 5]);
  });

  it("batch with overrides adds a version to the dataset of the same name", async () => {
    const org = await newOrg();
    const first = await upload(org, SMALL_CSV, { dataset_name: "monthly" });
    const r = await json("/api/datasets/batch", org, {
      method: "POST",
      body: {
        dataset_name: "monthly",
        overrides: true,
        files: [{ filename: "m.csv", bytes: 5, content_type: "text/csv", checksum_sha256: "a".repeat(64) }],
      },
    });
    expect(r.status).toBe(201);
    expect(r.body.dataset_id).toBe(first.dataset.id);
  });
});

describe("signed-URL upload errors", () => {
  it("PUT with a Content-Type other than declared answers 400", async () => {
    const org = await newOrg();
    const bytes = enc(SMALL_CSV);
    const p = await prepareSigned(org, { bytes: bytes.length });
    const res = await putSigned(p.upload.upload_url, bytes, "application/octet-stream");
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).detail).toMatch(/Content-Type must be 'text\/csv'/);
  });

  it("PUT of a length other than declared answers 400", async () => {
    const org = await newOrg();
    const p = await prepareSigned(org, { bytes: 999 });
    const res = await putSigned(p.upload.upload_url, enc(SMALL_CSV));
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).detail).toMatch(/999 bytes were declared/);
  });

  it("PUT without a Content-Length (a streamed body) answers 411", async () => {
    const org = await newOrg();
    const p = await prepareSigned(org, { bytes: 3 });
    const body = new ReadableStream({
      start(c) {
        c.enqueue(enc("a,b"));
        c.close();
      },
    });
    const res = await putSigned(p.upload.upload_url, body);
    expect(res.status).toBe(411);
    expect(((await res.json()) as any).detail).toMatch(/Content-Length/);
  });

  it("PUT with a tampered token answers 403", async () => {
    const org = await newOrg();
    const p = await prepareSigned(org, { bytes: 10 });
    const url = new URL(p.upload.upload_url);
    const [payload, sig] = url.pathname.replace("/uploads/", "").split(".");
    const claim = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/")));
    const forged = btoa(JSON.stringify({ ...claim, bytes: 11 }))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
    const res = await call(`/uploads/${forged}.${sig}`, { method: "PUT", headers: { "Content-Type": "text/csv" }, body: "0123456789a" });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ detail: "Forbidden" });
    const garbled = await call(`/uploads/${payload}.${sig.slice(0, -2)}xx`, {
      method: "PUT",
      headers: { "Content-Type": "text/csv" },
      body: "0123456789",
    });
    expect(garbled.status).toBe(403);
  });

  it("PUT with an expired token answers 403 saying it expired", async () => {
    const org = await newOrg();
    const p = await prepareSigned(org, { bytes: 10 });
    const claim = JSON.parse(
      atob(new URL(p.upload.upload_url).pathname.replace("/uploads/", "").split(".")[0].replace(/-/g, "+").replace(/_/g, "/")),
    );
    const token = await signUploadToken(env.SIGNING_SECRET, { ...claim, exp: Math.floor(Date.now() / 1000) - 5 });
    const res = await call(`/uploads/${token}`, { method: "PUT", headers: { "Content-Type": "text/csv" }, body: "0123456789" });
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).detail).toMatch(/expired/);
  });

  it("complete before the upload answers 409", async () => {
    const org = await newOrg();
    const p = await prepareSigned(org, { bytes: 10 });
    const r = await complete(org, p.dataset.version_id);
    expect(r.status).toBe(409);
    expect(r.body.detail).toMatch(/not been uploaded/);
    expect((await json(`/jobs/${p.job_id}`, org)).body.status).toBe("waiting_for_upload");
  });

  it("complete twice answers 409 the second time", async () => {
    const org = await newOrg();
    const { prepared } = await signedIngest(org, SMALL_CSV);
    const again = await complete(org, prepared.dataset.version_id);
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/already completed/);
  });

  it("PUT after complete answers 409", async () => {
    const org = await newOrg();
    const { prepared } = await signedIngest(org, SMALL_CSV);
    const res = await putSigned(prepared.upload.upload_url, enc(SMALL_CSV));
    expect(res.status).toBe(409);
  });

  it("complete of a direct-upload version answers 409", async () => {
    const org = await newOrg();
    const created = await upload(org, SMALL_CSV);
    const r = await complete(org, created.dataset.version_id);
    expect(r.status).toBe(409);
  });

  it("batch checksum mismatch: PUT answers 400 and complete fails the job with counts.failed = 1", async () => {
    const org = await newOrg();
    const good = "a,b\n1,2\n";
    const bad = "a,b\n3,4\n";
    const r = await json("/api/datasets/batch", org, {
      method: "POST",
      body: {
        dataset_name: "checked",
        files: [
          { filename: "good.csv", bytes: enc(good).length, content_type: "text/csv", checksum_sha256: await sha256Hex(good) },
          { filename: "bad.csv", bytes: enc(bad).length, content_type: "text/csv", checksum_sha256: await sha256Hex("something else") },
        ],
      },
    });
    expect(r.status).toBe(201);
    expect((await putSigned(r.body.uploads[0].upload_url, enc(good))).status).toBe(200);
    const put = await putSigned(r.body.uploads[1].upload_url, enc(bad));
    expect(put.status).toBe(400);
    expect(((await put.json()) as any).detail).toMatch(/SHA-256 mismatch for 'bad.csv'/);
    const done = await complete(org, r.body.dataset_version_id, "/api");
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: "failed", counts: { expected: 2, uploaded: 1, failed: 1 } });
    const job = await json(`/jobs/${r.body.job_id}`, org);
    expect(job.body.status).toBe("failed");
    expect(job.body.error_message).toMatch(/1 of 2 files failed verification: SHA-256 mismatch for 'bad.csv'/);
    const versions = await json(`/datasets/${r.body.dataset_id}/versions`, org);
    expect(versions.body.items[0].status).toBe("failed");
  });

  it("a binary file sent through the signed URL ends as a failed ingest job", async () => {
    const org = await newOrg();
    const garbage = new Uint8Array(256).map((_, i) => (i * 37) % 128);
    const p = await prepareSigned(org, { bytes: garbage.length });
    expect((await putSigned(p.upload.upload_url, garbage)).status).toBe(200);
    expect((await complete(org, p.dataset.version_id)).status).toBe(200);
    const job = await waitForJob(org, p.job_id);
    expect(job.status).toBe("failed");
    expect(job.error_message).toMatch(/binary data/);
  });

  it("a declared size above the signed-upload limit answers 422 at body.file.bytes", async () => {
    const org = await newOrg();
    const [item] = expect422(
      await json("/datasets/upload", org, {
        method: "POST",
        body: { dataset_name: "huge", file: { filename: "h.csv", bytes: 200 * 1024 * 1024, content_type: "text/csv" } },
      }),
    );
    expect(item).toMatchObject({ loc: ["body", "file", "bytes"], input: 200 * 1024 * 1024 });
  });
});

const file = { filename: "d.csv", bytes: 10, content_type: "text/csv" };
const bfile = { ...file, checksum_sha256: "0".repeat(64) };

describe("bad JSON bodies answer 422 at the right loc", () => {
  it.each<[string, unknown, (string | number)[]]>([
    ["no file", { dataset_name: "x" }, ["body", "file"]],
    ["no dataset_name for a new dataset", { file }, ["body", "dataset_name"]],
    ["blank dataset_name", { dataset_name: "  ", file }, ["body", "dataset_name"]],
    ["dataset_name not a string", { dataset_name: 7, file }, ["body", "dataset_name"]],
    ["file not an object", { dataset_name: "x", file: "d.csv" }, ["body", "file"]],
    ["file without filename", { dataset_name: "x", file: { bytes: 10, content_type: "text/csv" } }, ["body", "file", "filename"]],
    ["file without content_type", { dataset_name: "x", file: { filename: "d.csv", bytes: 10 } }, ["body", "file", "content_type"]],
    ["bytes zero", { dataset_name: "x", file: { ...file, bytes: 0 } }, ["body", "file", "bytes"]],
    ["bytes fractional", { dataset_name: "x", file: { ...file, bytes: 1.5 } }, ["body", "file", "bytes"]],
    ["dataset_id not a UUID", { dataset_id: "abc", file }, ["body", "dataset_id"]],
    ["an array instead of an object", [file], ["body"]],
  ])("POST /datasets/upload: %s", async (_what, body, loc) => {
    const org = await newOrg();
    const items = expect422(await json("/datasets/upload", org, { method: "POST", body: body as any }));
    expect(items.map((i) => i.loc)).toContainEqual(loc);
  });

  it.each<[string, unknown, (string | number)[]]>([
    ["no files", { dataset_name: "x" }, ["body", "files"]],
    ["empty files", { dataset_name: "x", files: [] }, ["body", "files"]],
    ["files not an array", { dataset_name: "x", files: bfile }, ["body", "files"]],
    ["checksum not hex", { dataset_name: "x", files: [{ ...bfile, checksum_sha256: "xyz" }] }, ["body", "files", 0, "checksum_sha256"]],
    ["checksum missing on the second file", { dataset_name: "x", files: [bfile, file] }, ["body", "files", 1, "checksum_sha256"]],
    ["bytes missing", { dataset_name: "x", files: [{ ...bfile, bytes: undefined }] }, ["body", "files", 0, "bytes"]],
    ["bytes above the limit", { dataset_name: "x", files: [{ ...bfile, bytes: 101 * 1024 * 1024 }] }, ["body", "files", 0, "bytes"]],
    ["mixed formats", { dataset_name: "x", files: [bfile, { ...bfile, filename: "p.parquet" }] }, ["body", "files"]],
    ["overrides not a boolean", { dataset_name: "x", overrides: "yes", files: [bfile] }, ["body", "overrides"]],
    ["dataset_id not a UUID", { dataset_id: "abc", files: [bfile] }, ["body", "dataset_id"]],
    ["no dataset_name for a new dataset", { files: [bfile] }, ["body", "dataset_name"]],
    ["table_name not a string", { dataset_name: "x", table_name: 3, files: [bfile] }, ["body", "table_name"]],
  ])("POST /api/datasets/batch: %s", async (_what, body, loc) => {
    const org = await newOrg();
    const items = expect422(await json("/api/datasets/batch", org, { method: "POST", body: body as any }));
    expect(items.map((i) => i.loc)).toContainEqual(loc);
  });
});
