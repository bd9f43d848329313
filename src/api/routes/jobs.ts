import { Hono } from "hono";
import { z } from "zod";
import { conflict } from "../errors";
import { cancelJob, findJob, getJobDetail, listJobs, retryJob } from "../../jobs/service";
import { JOB_STATUSES, JOB_TYPES } from "../../jobs/types";
import type { AppEnv } from "../context";
import { jobDeps } from "../deps";
import { pageQuery } from "../pagination";
import { parseJsonBody, parseQuery } from "../validation";

export const jobRoutes = new Hono<AppEnv>();

const listJobsQuery = z.object({
  ...pageQuery,
  type: z.enum(JOB_TYPES).optional(),
  status: z.enum(JOB_STATUSES).optional(),
  model_id: z.string().optional(),
  dataset_id: z.string().optional(),
});

const explainBody = z.object({
  ids: z.array(z.union([z.number().int(), z.string().min(1)])).min(1).max(500),
});

jobRoutes.get("/jobs", async (c) => c.json(await listJobs(c.var.db, c.var.principal, parseQuery(c, listJobsQuery))));

jobRoutes.get("/jobs/:id", async (c) => c.json(await getJobDetail(jobDeps(c), c.var.principal, c.req.param("id"))));

jobRoutes.post("/jobs/:id/cancel", async (c) => c.json(await cancelJob(jobDeps(c), c.var.principal, c.req.param("id"))));

jobRoutes.post("/jobs/:id/retry", async (c) => c.json(await retryJob(jobDeps(c), c.var.principal, c.req.param("id")), 201));

jobRoutes.post("/jobs/:id/explain", async (c) => {
  const job = await findJob(c.var.db, c.var.principal, c.req.param("id"));
  await parseJsonBody(c, explainBody);
  // Explanations attach to completed inference jobs, which arrive with the inference issue.
  throw conflict(
    job.type === "infer_sync" || job.type === "infer_batch"
      ? "Explanations of inference jobs are not available in this version of the service yet."
      : `Only inference jobs can be explained; this job is a ${job.type} job.`,
  );
});
