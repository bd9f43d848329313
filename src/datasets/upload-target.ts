/**
 * Where the client PUTs a file of a signed upload. With R2 credentials (production, and
 * `npm start`, whose wrangler serves an S3-compatible endpoint for the local bucket) the URL is
 * an S3 SigV4 presigned PUT straight to the bucket: the bytes never pass through the Worker, and
 * R2 refuses another length, content type, key or an expired URL. Without them (the test pool,
 * deployments without an R2 API token) it is this Worker's `PUT /uploads/{token}` route, which
 * checks the same things itself. Either way `complete` verifies what arrived.
 */
import { SIGNED_UPLOAD_MAX_BYTES, UPLOAD_URL_TTL_S, WORKER_UPLOAD_ROUTE_MAX_BYTES } from "../core/limits";
import { presignPut, type S3Config } from "../storage/presign";
import { signUploadToken } from "../storage/signed-upload";

interface UploadFile {
  fileId: string;
  orgId: string;
  objectKey: string;
  contentType: string;
  bytes: number;
}

export interface UploadTarget {
  /** "r2": the client writes the bucket directly; "worker": through PUT /uploads/{token}. */
  via: "r2" | "worker";
  bucketName: string;
  /** The largest file this way can take. */
  maxBytes: number;
  /** The PUT URL for one file, valid until `expiresAtMs`. */
  urlFor(file: UploadFile, expiresAtMs: number): Promise<string>;
}

export function presignedTarget(cfg: S3Config): UploadTarget {
  return {
    via: "r2",
    bucketName: cfg.bucket,
    maxBytes: SIGNED_UPLOAD_MAX_BYTES,
    urlFor: (f, expiresAtMs) =>
      presignPut(cfg, f.objectKey, {
        contentType: f.contentType,
        bytes: f.bytes,
        expiresS: Math.max(1, Math.min(UPLOAD_URL_TTL_S, Math.round((expiresAtMs - Date.now()) / 1000))),
      }),
  };
}

/** `origin`: the address the client used, so the URL works wherever the API is reached. */
export function workerRouteTarget(signingSecret: string, origin: string, bucketName: string): UploadTarget {
  return {
    via: "worker",
    bucketName,
    maxBytes: WORKER_UPLOAD_ROUTE_MAX_BYTES,
    async urlFor(f, expiresAtMs) {
      const token = await signUploadToken(signingSecret, {
        file_id: f.fileId,
        org_id: f.orgId,
        content_type: f.contentType,
        bytes: f.bytes,
        exp: Math.floor(expiresAtMs / 1000),
      });
      return `${origin}/uploads/${token}`;
    },
  };
}
