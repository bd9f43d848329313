import type { Context } from "hono";
import type { DatasetDeps } from "../datasets/deps";
import { presignedTarget, type UploadTarget, workerRouteTarget } from "../datasets/upload-target";
import { createDb, type Db } from "../db/client";
import type { JobDeps } from "../jobs/service";
import { trainerMode } from "../training/trainer-client";
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
  const env = c.env;
  const bucket = String(env.R2_BUCKET_NAME || "tabular-ml-data");
  const origin = new URL(c.req.url).origin;
  // "local": wrangler's S3-compatible endpoint for the local bucket, on the address the client used
  // (SigV4 signs the host, so the URL must name the host the client reaches).
  const configured = String(env.R2_S3_ENDPOINT ?? "");
  const endpoint = configured === "local" ? `${origin}/cdn-cgi/local/r2/s3` : configured;
  const accessKeyId = String(env.R2_ACCESS_KEY_ID ?? "");
  const secretAccessKey = String(env.R2_SECRET_ACCESS_KEY ?? "");
  if (endpoint && accessKeyId && secretAccessKey) return presignedTarget({ endpoint, bucket, accessKeyId, secretAccessKey });
  return workerRouteTarget(env.SIGNING_SECRET, origin, bucket);
}

/** The authenticated request's database handle; public routes make their own. */
function dbOf(c: Context<AppEnv>): Db {
  return c.var.db ?? createDb(c.env.DB);
}
