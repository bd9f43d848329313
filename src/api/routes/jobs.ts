import { cancelJob, getJobDetail, listJobs, retryJob } from "../../jobs/service";
import { startExplanation } from "../../models/explain";
import { jobResults } from "../../models/job-results";
import * as def from "../definitions/jobs";
import { jobDeps } from "../deps";
import { idempotent } from "../idempotency";
import { locationOf } from "../locations";
import { presentJob } from "../presenters/jobs";
import { presentPage } from "../presenters/page";
import { apiRouter } from "../router";

export const jobRoutes = apiRouter();

jobRoutes.openapi(def.listJobs, async (c) => c.json(presentPage(await listJobs(c.var.db, c.var.principal, c.req.valid("query")), presentJob), 200));

jobRoutes.openapi(def.getJob, async (c) => c.json(presentJob(await getJobDetail(jobDeps(c), c.var.principal, c.req.valid("param").job_id)), 200));

jobRoutes.openapi(def.cancelJob, async (c) => c.json(await cancelJob(jobDeps(c), c.var.principal, c.req.valid("param").job_id), 200));

jobRoutes.openapi(def.retryJob, async (c) => {
  const { job_id: id } = c.req.valid("param");
  const res = await idempotent(c.var.db, c.var.principal, `POST /jobs/${id}/retry`, c.req.header("Idempotency-Key"), {}, async () => ({
    status: 201,
    body: await retryJob(jobDeps(c), c.var.principal, id),
  }));
  c.header("Location", locationOf.job(res.body.job_id));
  return c.json(res.body, 201);
});

/** Explain rows of a succeeded inference job: 202 with the infer_explain job. */
jobRoutes.openapi(def.explainJob, async (c) => {
  const deps = { ...jobDeps(c), bucket: c.env.BUCKET };
  const { job_id: id } = c.req.valid("param");
  const body = c.req.valid("json");
  const res = await idempotent(c.var.db, c.var.principal, `POST /jobs/${id}/explain`, c.req.header("Idempotency-Key"), body, async () => ({
    status: 202,
    body: presentJob(await startExplanation(deps, c.var.principal, id, body.ids)),
  }));
  c.header("Location", locationOf.job(res.body.id));
  return c.json(res.body, 202);
});

/** A succeeded async inference job's results: JSON pages, or the csv / parquet file streamed from R2. */
jobRoutes.openapi(def.jobResults, async (c) => {
  const deps = { ...jobDeps(c), bucket: c.env.BUCKET };
  const r = await jobResults(deps, c.var.principal, c.req.valid("param").job_id, c.req.valid("query"));
  if (r.kind === "json") return c.json(r.body, 200);
  return c.body(r.body, 200, {
    "Content-Type": r.contentType,
    "Content-Length": String(r.size),
    "Content-Disposition": `attachment; filename="results.${r.format}"`,
  });
});
