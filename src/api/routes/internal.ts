/**
 * The Worker's internal control routes: the only way the trainer reads data, writes artifacts
 * and reports progress. Authenticated by the internal secret, never by an API key.
 */
import { Hono, type MiddlewareHandler } from "hono";
import { z } from "zod";
import { bearerToken, sameSecret } from "../../auth/secrets";
import { createDb } from "../../db/client";
import { progressReportSchema } from "../../jobs/types";
import * as control from "../../training/control-service";
import type { AppEnv } from "../context";
import { errorResponse, HttpError, notAuthenticated, validationError } from "../errors";
import { jsonBody } from "../request-body";

const requireInternalSecret: MiddlewareHandler<AppEnv> = async (c, next) => {
  const secret = c.env.INTERNAL_SECRET ?? "";
  if (!secret || !(await sameSecret(bearerToken(c.req.header("Authorization")) ?? "", secret))) throw notAuthenticated();
  c.set("db", createDb(c.env.DB));
  await next();
};

function parseWith<S extends z.ZodType>(schema: S, input: unknown, where: "query" | "path" | "body"): z.output<S> {
  const r = schema.safeParse(input);
  if (!r.success) throw validationError(r.error, where, input);
  return r.data;
}

/** The JSON body (read by jsonBody), validated. */
async function jsonOf<S extends z.ZodType>(c: { req: { json(): Promise<unknown> } }, schema: S): Promise<z.output<S>> {
  return parseWith(schema, await c.req.json(), "body");
}

const jobIdParam = z.object({ id: z.uuid() });

/** The control routes, for the public app (without containers) and the container's outbound handler. */
export const internalApp = new Hono<AppEnv>();

internalApp.use("/internal/*", requireInternalSecret);
internalApp.use("/internal/jobs/:id/*", async (c, next) => {
  parseWith(jobIdParam, { id: c.req.param("id") }, "path");
  await next();
});

const attemptQuery = z.object({ attempt: z.coerce.number().int().min(1) });
const reportBody = progressReportSchema.extend({ attempt: z.number().int().min(1), rows_processed: z.number().int().min(0).optional() });
const succeedBody = z.object({ attempt: z.number().int().min(1), output: z.record(z.string(), z.unknown()) });
const failBody = z.object({ attempt: z.number().int().min(1), message: z.string().min(1).max(4000), permanent: z.boolean() });

const deps = (c: { var: AppEnv["Variables"]; env: Env }): control.ControlDeps => ({
  db: c.var.db,
  bucket: c.env.BUCKET,
  jobs: c.env.JOB,
  queue: c.env.JOBS_QUEUE,
});
const attemptOf = (c: { req: { query(): Record<string, string> } }) => parseWith(attemptQuery, c.req.query(), "query").attempt;

internalApp.get("/internal/jobs/:id/task", async (c) => c.json(await control.taskOf(deps(c), c.req.param("id"), attemptOf(c))));

internalApp.get("/internal/jobs/:id/frame", async (c) => {
  const obj = await control.readFrame(deps(c), c.req.param("id"), attemptOf(c));
  return new Response(obj.body, { headers: { "Content-Type": "application/octet-stream", "Content-Length": String(obj.size) } });
});

internalApp.get("/internal/jobs/:id/representation", async (c) => {
  const obj = await control.readRepresentation(deps(c), c.req.param("id"), attemptOf(c));
  if (!obj) return c.json({ detail: "No representation is stored for this dataset version yet." }, 404);
  return new Response(obj.body, { headers: { "Content-Type": "application/json" } });
});

internalApp.put("/internal/jobs/:id/representation", async (c) => {
  await control.writeRepresentation(deps(c), c.req.param("id"), attemptOf(c), await c.req.arrayBuffer());
  return c.body(null, 204);
});

internalApp.put("/internal/jobs/:id/artifacts/:file", async (c) => {
  await control.writeArtifact(deps(c), c.req.param("id"), attemptOf(c), c.req.param("file"), await c.req.arrayBuffer());
  return c.body(null, 204);
});

internalApp.post("/internal/jobs/:id/report", jsonBody, async (c) => {
  const { attempt, ...report } = await jsonOf(c, reportBody);
  return c.json(await control.reportProgress(deps(c), c.req.param("id"), attempt, report));
});

internalApp.post("/internal/jobs/:id/succeed", jsonBody, async (c) => {
  const body = await jsonOf(c, succeedBody);
  return c.json(await control.succeedTraining(deps(c), c.req.param("id"), body.attempt, body.output));
});

internalApp.post("/internal/jobs/:id/fail", jsonBody, async (c) => {
  const { attempt, ...f } = await jsonOf(c, failBody);
  return c.json(await control.failTraining(deps(c), c.req.param("id"), attempt, f));
});

internalApp.onError((err, c) => errorResponse(c, err));
internalApp.notFound((c) => errorResponse(c, new HttpError(404, "Not found")));
