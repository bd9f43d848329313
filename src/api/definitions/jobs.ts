/** The job routes as OpenAPI definitions: paths, request schemas, responses. */
import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { RESULT_LIMIT_DEFAULT, RESULT_LIMIT_MAX, ROW_IDS_MAX } from "../../core/limits";
import { OUTPUT_FORMATS } from "../../inference/output";
import { findJob } from "../../jobs/service";
import { JOB_STATUSES, JOB_TYPES } from "../../jobs/types";
import type { AppEnv } from "../context";
import { pageQuery } from "../pagination";
import { jsonBody } from "../request-body";
import { AUTH_ERRORS, errorResponses } from "../schemas/common";
import { JobCanceled, JobDetail, JobPage, JobResults, JobRetried } from "../schemas/jobs";
import { explainSummary } from "../schemas/model-type-docs";
import { createdAnswer, idempotencyKeyHeader, jsonAnswer } from "./parts";

const TAG = ["Jobs"];

/** A 404 for an unknown job comes before any complaint about the body. */
const jobMustExist: MiddlewareHandler<AppEnv> = async (c, next) => {
  await findJob(c.var.db, c.var.principal, c.req.param("job_id") ?? "");
  await next();
};
const jobIdParam = z.object({
  job_id: z.string().openapi({ param: { name: "job_id", in: "path" }, description: "Job id: the public form job_<32 hex> or the plain UUID" }),
});

export const listJobs = createRoute({
  operationId: "listJobs",
  method: "get",
  path: "/jobs",
  tags: TAG,
  summary: "List jobs, newest first",
  request: {
    query: z.object({
      ...pageQuery,
      type: z.enum(JOB_TYPES).optional(),
      status: z.enum(JOB_STATUSES).optional(),
      model_id: z.string().optional(),
      dataset_id: z.string().optional(),
      parent_job_id: z.string().optional().openapi({ description: "Jobs created from this job (explanations of an inference job)" }),
    }),
  },
  responses: { 200: jsonAnswer(JobPage, "A page of jobs"), ...errorResponses(...AUTH_ERRORS, 422) },
});

export const getJob = createRoute({
  operationId: "getJob",
  method: "get",
  path: "/jobs/{job_id}",
  tags: TAG,
  summary: "Job detail, with live progress",
  request: { params: jobIdParam },
  responses: { 200: jsonAnswer(JobDetail, "The job"), ...errorResponses(...AUTH_ERRORS, 404) },
});

export const cancelJob = createRoute({
  operationId: "cancelJob",
  method: "post",
  path: "/jobs/{job_id}/cancel",
  tags: TAG,
  summary: "Cancel a queued or running job (best effort)",
  description:
    "Best effort, as a job may end on its own at any moment: a job that has already ended is left as it is, and the answer gives its status (`succeeded`, `failed`, `canceled` or `rejected`) rather than an error, so that a cancel racing the job's end, or sent twice, is not a failure.",
  request: { params: jobIdParam },
  responses: {
    200: jsonAnswer(JobCanceled, "The job's status after the cancel: `canceled`, or how it had already ended"),
    ...errorResponses(...AUTH_ERRORS, 404),
  },
});

export const retryJob = createRoute({
  operationId: "retryJob",
  method: "post",
  path: "/jobs/{job_id}/retry",
  tags: TAG,
  summary: "Retry a failed job as a new job with the same parameters",
  request: { params: jobIdParam, headers: idempotencyKeyHeader },
  responses: { 201: createdAnswer(JobRetried, "The new job, queued", "The new job: `/jobs/{job_id}`"), ...errorResponses(...AUTH_ERRORS, 404, 409) },
});

export const explainJob = createRoute({
  operationId: "explainJob",
  method: "post",
  path: "/jobs/{job_id}/explain",
  tags: TAG,
  summary: explainSummary(),
  middleware: [jobMustExist, jsonBody] as const,
  request: {
    params: jobIdParam,
    headers: idempotencyKeyHeader,
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            ids: z
              .array(z.union([z.number().int(), z.string().min(1)]))
              .min(1)
              .max(ROW_IDS_MAX),
          }),
        },
      },
    },
  },
  responses: {
    202: createdAnswer(JobDetail, "The explanation job", "The explanation job: `/jobs/{job_id}`"),
    ...errorResponses(...AUTH_ERRORS, 404, 409, 413, 422),
  },
});

export const jobResults = createRoute({
  operationId: "getJobResults",
  method: "get",
  path: "/jobs/{job_id}/results",
  tags: TAG,
  summary: "Results of a succeeded async inference job: a page of JSON rows, or the csv / parquet file",
  request: {
    params: jobIdParam,
    query: z.object({
      format: z.enum(OUTPUT_FORMATS).optional().openapi({ description: "Default: the job's output_type" }),
      limit: z.coerce
        .number()
        .int()
        .min(1)
        .max(RESULT_LIMIT_MAX)
        .default(RESULT_LIMIT_DEFAULT)
        .openapi({ description: `json: rows per page (1 to ${RESULT_LIMIT_MAX}, default ${RESULT_LIMIT_DEFAULT})` }),
      cursor: z.string().max(20).optional().openapi({ description: "json: next_cursor of the previous page" }),
    }),
  },
  responses: {
    200: {
      description: "json: a page of rows; csv and parquet: the whole file",
      content: {
        "application/json": { schema: JobResults },
        "text/csv": { schema: z.string() },
        "application/vnd.apache.parquet": { schema: z.string().openapi({ type: "string", format: "binary" }) },
      },
    },
    ...errorResponses(...AUTH_ERRORS, 404, 409, 422),
  },
});
