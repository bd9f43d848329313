import type { Context } from "hono";
import type { DatasetDeps } from "../datasets/deps";
import { presignedTarget, type UploadTarget, workerRouteTarget } from "../datasets/upload-target";
import { createDb, type Db } from "../db/client";
import type { JobDeps } from "../jobs/service";
import type { S3Config } from "../storage/presign";
import { trainerMode } from "../trainer-control/trainer-client";
import type { AppEnv } from "./context";

/** Plain dependencies for services, taken from the request's bindings once, here. */
export function jobDeps(c: Context<AppEnv>): JobDeps {
  return { db: dbOf(c), jobs: c.env.JOB, queue: c.env.JOBS_QUEUE };
}

export function datasetDeps(c: Context<AppEnv>): DatasetDeps {
  return {
    ...jobDeps(c),
    bucket: c.env.BUCKET,
    signingSecret: c.env.SIGNING_SECRET,
    uploadTarget: uploadTargetOf(c),
    trainerIngests: trainerMode(c.env) !== "inline",
  };
}

/** Presigned R2 URLs when the S3 endpoint and credentials are configured, else the Worker's route. */
function uploadTargetOf(c: Context<AppEnv>): UploadTarget {
  const origin = new URL(c.req.url).origin;
  const s3 = s3ConfigOf(c.env, origin);
  return s3 ? presignedTarget(s3) : workerRouteTarget(c.env.SIGNING_SECRET, origin, bucketNameOf(c.env));
}

const bucketNameOf = (env: Env) => String(env.R2_BUCKET_NAME || "tabular-ml-data");

/**
 * The bucket's S3 API, when its endpoint and credentials are configured (production, `npm start`),
 * else null (the test pool): client uploads and the trainer's transfers then go through the Worker.
 * `origin`: the address the request came to. "local" is wrangler's S3-compatible endpoint for the
 * local bucket on that address (SigV4 signs the host, so the URL must name the host the client,
 * or the trainer calling the control routes, reaches).
 */
export function s3ConfigOf(env: Env, origin: string): S3Config | null {
  const configured = String(env.R2_S3_ENDPOINT ?? "");
  const endpoint = configured === "local" ? `${origin}/cdn-cgi/local/r2/s3` : configured;
  const accessKeyId = String(env.R2_ACCESS_KEY_ID ?? "");
  const secretAccessKey = String(env.R2_SECRET_ACCESS_KEY ?? "");
  return endpoint && accessKeyId && secretAccessKey ? { endpoint, bucket: bucketNameOf(env), accessKeyId, secretAccessKey } : null;
}

/** The authenticated request's database handle; public routes make their own. */
function dbOf(c: Context<AppEnv>): Db {
  return c.var.db ?? createDb(c.env.DB);
}
