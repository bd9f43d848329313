import type { Context } from "hono";
import type { DatasetDeps } from "../datasets/deps";
import { createDb, type Db } from "../db/client";
import type { JobDeps } from "../jobs/service";
import type { AppEnv } from "./context";

/** Plain dependencies for services, taken from the request's bindings once, here. */
export function jobDeps(c: Context<AppEnv>): JobDeps {
  return { db: dbOf(c), jobs: c.env.JOB, queue: c.env.JOBS_QUEUE };
}

export function datasetDeps(c: Context<AppEnv>): DatasetDeps {
  return { ...jobDeps(c), bucket: c.env.BUCKET, signingSecret: c.env.SIGNING_SECRET };
}

/** The authenticated request's database handle; public routes make their own. */
function dbOf(c: Context<AppEnv>): Db {
  return c.var.db ?? createDb(c.env.DB);
}
