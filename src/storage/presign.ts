/**
 * S3 SigV4 presigned URLs for R2 (aws4fetch does the signing): the client PUTs a file straight to
 * the bucket, and the signature binds the method, the object key, the expiry and the signed
 * headers (content type and length), so any other request with that URL is refused by R2 itself.
 * In production the endpoint is `https://<account>.r2.cloudflarestorage.com`; locally it is the
 * S3-compatible endpoint wrangler serves for the local bucket (`/cdn-cgi/local/r2/s3`).
 */
import { AwsClient } from "aws4fetch";

export interface S3Config {
  /** Base address; the URL is path-style: {endpoint}/{bucket}/{key}. */
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** R2 signs for "auto"; the AWS test vectors use us-east-1. */
  region?: string;
}

interface PresignRequest {
  method: string;
  /** Full URL of the object (use objectUrl). */
  url: string;
  /** Headers bound into the signature (lower-case names); the client must send exactly these. */
  headers: Record<string, string>;
  expiresS: number;
  /** Signing time (tests); now by default. */
  datetime?: string;
}

/** @internal exported for its unit tests (test/core/presign.test.ts, test/e2e/presigned-upload.test.ts) */
export const objectUrl = (cfg: S3Config, key: string) =>
  `${cfg.endpoint.replace(/\/+$/, "")}/${cfg.bucket}/${key.split("/").map(encodeURIComponent).join("/")}`;

/** @internal exported for its unit tests (test/core/presign.test.ts, test/e2e/presigned-upload.test.ts) */
export async function presign(cfg: S3Config, req: PresignRequest): Promise<string> {
  const client = new AwsClient({ accessKeyId: cfg.accessKeyId, secretAccessKey: cfg.secretAccessKey, service: "s3", region: cfg.region ?? "auto" });
  const url = new URL(req.url);
  url.searchParams.set("X-Amz-Expires", String(req.expiresS));
  const signed = await client.sign(url.toString(), {
    method: req.method,
    headers: req.headers,
    // allHeaders: content-type and content-length are signed too (aws4fetch skips them by default)
    aws: { signQuery: true, allHeaders: true, datetime: req.datetime },
  });
  return signed.url;
}

/** A presigned PUT of exactly `bytes` bytes of `contentType` to `key`, valid for `expiresS` seconds. */
export function presignPut(cfg: S3Config, key: string, file: { contentType: string; bytes: number; expiresS: number }): Promise<string> {
  return presign(cfg, {
    method: "PUT",
    url: objectUrl(cfg, key),
    headers: { "content-type": file.contentType, "content-length": String(file.bytes) },
    expiresS: file.expiresS,
  });
}

/** A presigned GET of `key` (the whole object, or a Range the client adds: unsigned headers pass). */
export function presignGet(cfg: S3Config, key: string, expiresS: number): Promise<string> {
  return presign(cfg, { method: "GET", url: objectUrl(cfg, key), headers: {}, expiresS });
}

/**
 * A presigned S3 UploadPart: part `partNumber` of the multipart upload `uploadId` of `key`, exactly
 * `bytes` long. partNumber and uploadId are in the signed query, so the URL stores that part of
 * that upload only; the signed content-length makes R2 refuse a part of another size.
 */
export function presignUploadPart(
  cfg: S3Config,
  key: string,
  part: { uploadId: string; partNumber: number; bytes: number; expiresS: number },
): Promise<string> {
  const url = new URL(objectUrl(cfg, key));
  url.searchParams.set("partNumber", String(part.partNumber));
  url.searchParams.set("uploadId", part.uploadId);
  return presign(cfg, { method: "PUT", url: url.toString(), headers: { "content-length": String(part.bytes) }, expiresS: part.expiresS });
}
