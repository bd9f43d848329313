/**
 * The outermost middleware: every answer carries `X-Request-Id` (the client's own when it sent a
 * usable one, else a new UUID), and every request is logged as one JSON line (request id, method,
 * route, status, duration, organization, job id) and counted in Workers Analytics Engine
 * (../core/metrics). `wrangler tail` and Workers Logs show the lines.
 */
import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { recordRequest } from "../core/metrics";
import type { AppEnv } from "./context";

export const REQUEST_ID_HEADER = "X-Request-Id";
/** A client's id is echoed when it is 1–200 letters, digits, `_`, `-`, `.` or `=` (it goes into logs as is). */
const USABLE_ID = /^[\w.=-]{1,200}$/;
/** A JSON answer this small may name a job it created (`job_id`): read for the log line, larger ones are not. */
const JOB_ANSWER_MAX_BYTES = 16 * 1024;

export const requestLog: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = Date.now();
  const given = c.req.header(REQUEST_ID_HEADER);
  const requestId = given && USABLE_ID.test(given) ? given : crypto.randomUUID();
  c.set("requestId", requestId);
  await next();
  c.res = withHeader(c.res, REQUEST_ID_HEADER, requestId);
  const durationMs = Date.now() - started;
  const route = matchedRoute(c);
  const organization = c.var.principal?.orgId ?? null;
  const status = c.res.status;
  recordRequest(c.env.METRICS, { organization, method: c.req.method, route, status, durationMs });
  const line = {
    level: status >= 500 ? "error" : "info",
    msg: "request",
    request_id: requestId,
    method: c.req.method,
    route,
    path: c.req.path,
    status,
    duration_ms: durationMs,
    organization,
    job_id: await jobOf(c),
  };
  console.log(JSON.stringify(line));
};

/** The route pattern that answered (`/jobs/:id`), or "(none)" for a path no route knows. */
function matchedRoute(c: Context<AppEnv>): string {
  const path = routePath(c, -1);
  return path && path !== "*" && path !== "/*" ? path : "(none)";
}

/**
 * The job the request is about: named in its path (a trainer's control call too), set by its
 * route (`jobId`: a sync inference, whose answer may be large), in the answer's X-Job-Id, or
 * created by it: the `job_id` of a 201 or 202 JSON answer (small, as every creation's is) or of
 * another JSON answer of a declared length under 16 KB.
 */
async function jobOf(c: Context<AppEnv>): Promise<string | null> {
  const inPath = /^\/(?:internal\/)?jobs\/([^/]+)/.exec(c.req.path)?.[1];
  if (inPath) return inPath;
  if (c.var.jobId) return c.var.jobId;
  const header = c.res.headers.get("X-Job-Id");
  if (header) return header;
  const small = c.res.status === 201 || c.res.status === 202 || Number(c.res.headers.get("Content-Length") ?? Number.NaN) <= JOB_ANSWER_MAX_BYTES;
  if (!c.res.headers.get("Content-Type")?.startsWith("application/json") || !small) return null;
  try {
    const body = (await c.res.clone().json()) as { job_id?: unknown };
    return typeof body?.job_id === "string" ? body.job_id : null;
  } catch {
    return null;
  }
}

/** The response with one more header (a fetched or static response's headers are immutable: copied then). */
function withHeader(res: Response, name: string, value: string): Response {
  try {
    res.headers.set(name, value);
    return res;
  } catch {
    const copy = new Response(res.body, res);
    copy.headers.set(name, value);
    return copy;
  }
}
