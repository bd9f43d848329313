/**
 * The Worker's internal control routes: the only way the trainer reads data, writes artifacts
 * and reports progress. Authenticated by the internal secret, never by an API key.
 */
import { Hono, type MiddlewareHandler } from "hono";
import { trainerMode } from "../../training/trainer-client";
import { z } from "zod";
import { createDb } from "../../db/client";
import { progressReportSchema } from "../../jobs/types";
import * as control from "../../training/control-service";
import type { AppEnv } from "../context";
import { errorResponse, notAuthenticated, notFound } from "../errors";
import { parseJsonBody, parseWith } from "../validation";

export const internalRoutes = new Hono<AppEnv>();

/**
 * On the public address the routes exist only for a trainer process that reaches the Worker over
 * HTTP (`npm start`) and for the test pool; in production the container reaches them through
 * `internalApp`, from inside the Worker, and the public address answers 404.
 */
const onlyWithoutContainers: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (trainerMode(c.env) === "container") throw notFound();
  await next();
};

const requireInternalSecret: MiddlewareHandler<AppEnv> = async (c, next) => {
  const given = c.req.header("Authorization")?.match(/^Bearer\s+(\S+)$/)?.[1] ?? "";
  const secret = c.env.INTERNAL_SECRET ?? "";
  if (!secret || !(await sameSecret(given, secret))) throw notAuthenticated();
  c.set("db", createDb(c.env.DB));
  await next();
};

/** Compare digests in constant time, so response timing says nothing about the secret. */
async function sameSecret(a: string, b: string): Promise<boolean> {
  const enc = new TextEncoder();
  const [da, db] = await Promise.all([crypto.subtle.digest("SHA-256", enc.encode(a)), crypto.subtle.digest("SHA-256", enc.encode(b))]);
  return crypto.subtle.timingSafeEqual(da, db);
}

const jobIdParam = z.object({ id: z.uuid() });

internalRoutes.use("/internal/*", requireInternalSecret);
internalRoutes.use("/internal/jobs/:id/*", async (c, next) => {
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

internalRoutes.get("/internal/jobs/:id/task", async (c) => c.json(await control.taskOf(deps(c), c.req.param("id"), attemptOf(c))));

internalRoutes.get("/internal/jobs/:id/frame", async (c) => {
  const obj = await control.readFrame(deps(c), c.req.param("id"), attemptOf(c));
  return new Response(obj.body, { headers: { "Content-Type": "application/octet-stream", "Content-Length": String(obj.size) } });
});

internalRoutes.get("/internal/jobs/:id/representation", async (c) => {
  const obj = await control.readRepresentation(deps(c), c.req.param("id"), attemptOf(c));
  if (!obj) return c.json({ detail: "No representation is stored for this dataset version yet." }, 404);
  return new Response(obj.body, { headers: { "Content-Type": "application/json" } });
});

internalRoutes.put("/internal/jobs/:id/representation", async (c) => {
  await control.writeRepresentation(deps(c), c.req.param("id"), attemptOf(c), await c.req.arrayBuffer());
  return c.body(null, 204);
});

internalRoutes.put("/internal/jobs/:id/artifacts/:file", async (c) => {
  await control.writeArtifact(deps(c), c.req.param("id"), attemptOf(c), c.req.param("file"), await c.req.arrayBuffer());
  return c.body(null, 204);
});

internalRoutes.post("/internal/jobs/:id/report", async (c) => {
  const { attempt, ...report } = await parseJsonBody(c, reportBody);
  return c.json(await control.reportProgress(deps(c), c.req.param("id"), attempt, report));
});

internalRoutes.post("/internal/jobs/:id/succeed", async (c) => {
  const body = await parseJsonBody(c, succeedBody);
  return c.json(await control.succeedTraining(deps(c), c.req.param("id"), body.attempt, body.output));
});

internalRoutes.post("/internal/jobs/:id/fail", async (c) => {
  const { attempt, ...f } = await parseJsonBody(c, failBody);
  return c.json(await control.failTraining(deps(c), c.req.param("id"), attempt, f));
});

// Mounted last: Hono copies the routes that exist when `route` is called.
/** The same routes for the trainer container's outbound handler (no public-address guard). */
export const internalApp = new Hono<AppEnv>();
internalApp.route("/", internalRoutes);
internalApp.onError((err, c) => errorResponse(c, err));
internalApp.notFound((c) => errorResponse(c, notFound()));

/** What the public app mounts. */
export const publicInternalRoutes = new Hono<AppEnv>();
publicInternalRoutes.use("/internal/*", onlyWithoutContainers);
publicInternalRoutes.route("/", internalRoutes);
