/**
 * Signed uploads as a client does them against `npm start`: the upload URL is an S3 SigV4
 * presigned PUT to the local R2 bucket's S3-compatible endpoint (wrangler serves it), so the bytes
 * never pass through the Worker; R2 refuses anything the signature does not cover, and
 * `complete` checks what arrived before ingesting.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { AwsClient } from "aws4fetch";
import { describe, expect, inject, it } from "vitest";
import { s3Refusal } from "../../src/container/http-retry";
import { objectUrl, presignGet, presignUploadPart } from "../../src/storage/presign";
import { apiCall, jobLogMatching, pollUntil, sharedService } from "./service";

const svc = await sharedService(inject("sharedService"), "presigned-upload");

const api = (path: string, init: RequestInit = {}) => apiCall(svc, path, init);

const post = (path: string, body: unknown) =>
  api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

const until = (path: string, done: (b: any) => boolean, timeoutMs = 60_000) =>
  pollUntil(svc, path, async () => (await api(path)).body, done, timeoutMs);

const CSV = `x,y,label\n${Array.from({ length: 50 }, (_, i) => `${i},${i % 7},${i % 2 ? "a" : "b"}`).join("\n")}\n`;
const put = (url: string, body: string, type = "text/csv") => fetch(url, { method: "PUT", headers: { "Content-Type": type }, body });

describe("presigned uploads straight to the local R2 bucket", () => {
  it("refuse what the signature does not cover; complete checks, then ingests", async () => {
    const bytes = Buffer.byteLength(CSV);
    const prep = await post("/datasets/upload", { dataset_name: "presigned", file: { filename: "p.csv", bytes, content_type: "text/csv" } });
    expect(prep.status, JSON.stringify(prep.body)).toBe(201);
    const url = new URL(prep.body.upload.upload_url);
    expect(url.pathname).toMatch(/^\/cdn-cgi\/local\/r2\/s3\/tabular-ml-data\/orgs\//);
    expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("content-length;content-type;host");
    expect(url.searchParams.get("X-Amz-Expires")).toBe("3600");
    expect(Math.abs(Date.parse(prep.body.upload.expires_at) - Date.now() - 3600_000)).toBeLessThan(60_000);

    const early = await post(`/datasets/${prep.body.dataset.version_id}/complete`, {});
    expect(early.status).toBe(409);
    expect(early.body.detail).toMatch(/not been uploaded yet/);

    expect((await put(url.href, CSV, "text/plain")).status).toBe(403); // another content type
    expect((await put(url.href, `${CSV}9,9,a\n`)).status).toBe(403); // more bytes than declared
    expect((await put(url.href, CSV.slice(1))).status).toBe(403); // fewer
    const altered = new URL(url);
    altered.searchParams.set("X-Amz-Expires", "7200");
    expect((await put(altered.href, CSV)).status).toBe(403);
    expect((await put(url.href.replace("p.csv", "q.csv"), CSV)).status).toBe(403);

    expect((await put(url.href, CSV)).status).toBe(200);
    const done = await post(`/datasets/${prep.body.dataset.version_id}/complete`, {});
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.counts).toEqual({ expected: 1, uploaded: 1, failed: 0 });
    const job = await until(`/jobs/${done.body.job_id}`, (j) => ["succeeded", "failed"].includes(j.status));
    expect(job.status, job.error_message).toBe("succeeded");
    const ds = await api(`/datasets/${prep.body.dataset.id}`);
    expect(ds.body.row_count ?? ds.body.current_version?.row_count).toBe(50);
  }, 120_000);

  it("a batch file whose SHA-256 is not the declared one fails the ingest at complete", async () => {
    const wrong = createHash("sha256").update("something else").digest("hex");
    const prep = await post("/api/datasets/batch", {
      dataset_name: "presigned batch",
      files: [{ filename: "b.csv", bytes: Buffer.byteLength(CSV), content_type: "text/csv", checksum_sha256: wrong }],
    });
    expect(prep.status, JSON.stringify(prep.body)).toBe(201);
    expect((await put(prep.body.uploads[0].upload_url, CSV)).status).toBe(200);
    const done = await post(`/datasets/${prep.body.dataset_version_id}/complete`, {});
    expect(done.status).toBe(200);
    expect(done.body.counts).toEqual({ expected: 1, uploaded: 0, failed: 1 });
    const job = await until(`/jobs/${done.body.job_id}`, (j) => ["succeeded", "failed"].includes(j.status));
    expect(job.status).toBe("failed");
    expect(job.error_message).toMatch(/SHA-256 mismatch/);
  }, 60_000);

  it("a file over the Worker's 32 MB is ingested by the trainer process", async () => {
    const plans = ["basic", "pro", "team", "free", "max"];
    const rows = 1_800_000;
    const lines = ["n,usage,plan,churned"];
    for (let i = 0; i < rows; i++) lines.push(`${i},${((i * 37) % 1000) / 10},${plans[i % 5]},${i % 3 ? "no" : "yes"}`);
    const big = `${lines.join("\n")}\n`;
    const bytes = Buffer.byteLength(big);
    expect(bytes).toBeGreaterThan(32 * 1024 * 1024);
    const prep = await post("/datasets/upload", { dataset_name: "big", file: { filename: "big.csv", bytes, content_type: "text/csv" } });
    expect(prep.status, JSON.stringify(prep.body)).toBe(201);
    expect((await put(prep.body.upload.upload_url, big)).status).toBe(200);
    const done = await post(`/datasets/${prep.body.dataset.version_id}/complete`, {});
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const job = await until(`/jobs/${done.body.job_id}`, (j) => ["succeeded", "failed"].includes(j.status), 120_000);
    expect(job.status, job.error_message).toBe("succeeded");
    expect(job.output).toMatchObject({ row_count: rows, column_count: 4, format: "csv", bytes });
    const log = await jobLogMatching(svc, done.body.job_id, new RegExp(`ingested ${rows} rows`));
    // The trainer read the file and stored the frame's parts straight from and to R2 (presigned
    // URLs for the local bucket's S3 endpoint), not through the Worker's control routes.
    expect(log).toMatch(/reading uploaded file 0 straight from R2/);
    expect(log).toMatch(/frame of \d+ bytes stored in \d+ part\(s\) straight to R2/);
    const preview = await api(`/datasets/${prep.body.dataset.id}/preview?limit=2`);
    expect(preview.status).toBe(200);
    const lookup = await post(`/datasets/${prep.body.dataset.id}/rows/lookup`, { ids: [rows - 1] });
    expect(lookup.status, JSON.stringify(lookup.body)).toBe(200);
    expect(JSON.stringify(lookup.body)).toContain(String(rows - 1));
  }, 180_000);

  it("a Parquet file over the Worker's 32 MB is read by the trainer as it arrives: its footer by Range requests to R2 first", async () => {
    const dir = mkdtempSync(join(tmpdir(), "e2e-parquet-"));
    let big: Buffer;
    const rows = 2_000_000;
    try {
      const path = join(dir, "big.parquet");
      const db = await DuckDBInstance.create(":memory:");
      const con = await db.connect();
      // random doubles do not compress: about 16 bytes a row
      await con.run(`COPY (SELECT i AS n, random() AS a, random() AS b, 'p' || (i % 5) AS plan FROM range(${rows}) t(i))
        TO '${path}' (FORMAT parquet, COMPRESSION snappy)`);
      con.closeSync();
      db.closeSync();
      big = readFileSync(path);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const bytes = big.length;
    expect(bytes).toBeGreaterThan(32 * 1024 * 1024);
    const type = "application/vnd.apache.parquet";
    const prep = await post("/datasets/upload", { dataset_name: "big parquet", file: { filename: "big.parquet", bytes, content_type: type } });
    expect(prep.status, JSON.stringify(prep.body)).toBe(201);
    expect((await fetch(prep.body.upload.upload_url, { method: "PUT", headers: { "Content-Type": type }, body: big })).status).toBe(200);
    const done = await post(`/datasets/${prep.body.dataset.version_id}/complete`, {});
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const job = await until(`/jobs/${done.body.job_id}`, (j) => ["succeeded", "failed"].includes(j.status), 120_000);
    expect(job.status, job.error_message).toBe("succeeded");
    expect(job.output).toMatchObject({ row_count: rows, column_count: 4, format: "parquet", bytes });
    const log = await jobLogMatching(svc, done.body.job_id, /: ingested \d+ rows/);
    expect(log).toMatch(/read bytes 0–4 of uploaded file 0 by range straight from R2/);
    expect(log).toMatch(new RegExp(`read bytes \\d+–${bytes} of uploaded file 0 by range straight from R2`));
  }, 180_000);

  it("a presigned GET answers a Range (not covered by its signature) with 206 and those bytes", async () => {
    const toml = readFileSync("wrangler.toml", "utf8");
    const [, accessKeyId, secretAccessKey] =
      /experimental_s3_credentials\s*=\s*\{\s*accessKeyId\s*=\s*"([^"]+)"\s*,\s*secretAccessKey\s*=\s*"([^"]+)"/.exec(toml)!;
    const cfg = { endpoint: `${svc.base}/cdn-cgi/local/r2/s3`, bucket: "tabular-ml-data", accessKeyId, secretAccessKey };
    const aws = new AwsClient({ accessKeyId, secretAccessKey, service: "s3", region: "auto" });
    const key = `e2e/range-${Date.now()}.bin`;
    const body = Uint8Array.from({ length: 5000 }, (_, i) => i % 251);
    expect((await aws.fetch(objectUrl(cfg, key), { method: "PUT", body })).status).toBe(200);
    const url = await presignGet(cfg, key, 60);
    const res = await fetch(url, { headers: { Range: "bytes=4990-4999" } });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe("bytes 4990-4999/5000");
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(body.subarray(4990)))).toBe(true);
    expect((await aws.fetch(objectUrl(cfg, key), { method: "DELETE" })).status).toBe(204);
  });

  it("a presigned UploadPart (the trainer's frame parts) stores its part at its signed length only, answering a quoted ETag", async () => {
    // the local bucket's S3 API with the credentials wrangler.toml gives it, as `npm start` signs
    const toml = readFileSync("wrangler.toml", "utf8");
    const [, accessKeyId, secretAccessKey] =
      /experimental_s3_credentials\s*=\s*\{\s*accessKeyId\s*=\s*"([^"]+)"\s*,\s*secretAccessKey\s*=\s*"([^"]+)"/.exec(toml)!;
    const cfg = { endpoint: `${svc.base}/cdn-cgi/local/r2/s3`, bucket: "tabular-ml-data", accessKeyId, secretAccessKey };
    const aws = new AwsClient({ accessKeyId, secretAccessKey, service: "s3", region: "auto" });
    const key = `e2e/frame-parts-${Date.now()}.bin`;
    const created = await aws.fetch(`${objectUrl(cfg, key)}?uploads`, { method: "POST" });
    expect(created.status).toBe(200);
    const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(await created.text())![1];
    const url = await presignUploadPart(cfg, key, { uploadId, partNumber: 1, bytes: 1000, expiresS: 60 });
    const wrong = await fetch(url, { method: "PUT", body: new Uint8Array(999) });
    expect(wrong.status).toBe(403);
    expect(await s3Refusal(wrong)).toMatch(/^HTTP 403 SignatureDoesNotMatch: /);
    const other = new URL(url);
    other.searchParams.set("partNumber", "2");
    expect((await fetch(other, { method: "PUT", body: new Uint8Array(1000) })).status).toBe(403);
    const right = await fetch(url, { method: "PUT", body: new Uint8Array(1000).fill(1) });
    expect(right.status, await right.clone().text()).toBe(200);
    expect(right.headers.get("etag")).toMatch(/^"[^"]+"$/);
    expect((await aws.fetch(`${objectUrl(cfg, key)}?uploadId=${encodeURIComponent(uploadId)}`, { method: "DELETE" })).status).toBe(204);
  });

  it("a file above 5 GB is refused naming the limit", async () => {
    const r = await post("/datasets/upload", { dataset_name: "huge", file: { filename: "h.csv", bytes: 6e9, content_type: "text/csv" } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].msg).toMatch(/5 GB upload limit/);
  });
});
