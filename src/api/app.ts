import { Scalar } from "@scalar/hono-api-reference";
import { NotFound } from "../core/errors";
import { SERVICE_RUNTIME_VERSION } from "../core/version";
import { trainerMode } from "../trainer-control/trainer-client";
import { authenticate } from "./auth";
import * as meta from "./definitions/meta";
import { errorResponse } from "./errors";
import { recordKeyUse } from "./key-use";
import { openApiDocument } from "./openapi-document";
import { requestLog } from "./request-log";
import { answer405, apiRouter } from "./router";
import { apiKeyRoutes } from "./routes/api-keys";
import { datasetRoutes } from "./routes/datasets";
import { internalApp } from "./routes/internal";
import { jobRoutes } from "./routes/jobs";
import { modelRoutes } from "./routes/models";
import { warmRuntime } from "./warm-runtime";

/**
 * The paths that answer without an API key; everything else needs one (closed by default: a new
 * route is private unless it is added here). Each of them serves one method (GET, or PUT for the
 * signed upload whose token authorizes it); another method gets its 405 without a key. The
 * internal control routes have their own secret.
 */
const PUBLIC_PATHS: RegExp[] = [
  /^\/health$/,
  /^\/openapi\.json$/,
  /^\/docs$/,
  /^\/uploads\/[^/]+$/,
  /^\/internal\//,
  // The console's files are static assets answered before the Worker runs (wrangler.toml
  // [assets]); what reaches the Worker under /console is a missing file: 404, not 401.
  /^\/console(\/.*)?$/,
];

/** @internal exported for test/worker/openapi.test.ts */
export const isPublic = (path: string) => PUBLIC_PATHS.some((p) => p.test(path));

/** The one published form of the completion endpoint that also takes `X-API-Key`. */
const X_API_KEY_PATH = /^(\/api)?\/datasets\/[^/]+\/complete$/;

export function createApp() {
  const app = apiRouter();

  // Outermost: the request id, the log line and the metrics of every answer, whatever answers.
  app.use(requestLog);
  // A known path asked with a method it does not take answers 405 with Allow.
  app.use(answer405(app));
  app.use(warmRuntime);
  const requireKey = authenticate({ allowXApiKey: (path) => X_API_KEY_PATH.test(path) });
  app.use("*", async (c, next) => (isPublic(c.req.path) ? next() : requireKey(c, next)));
  app.use("*", recordKeyUse);

  app.openapi(meta.health, (c) => c.json({ status: "ok" as const, service_runtime_version: SERVICE_RUNTIME_VERSION }, 200));
  app.route("/", datasetRoutes);
  app.route("/", jobRoutes);
  app.route("/", modelRoutes);
  app.route("/", apiKeyRoutes);
  // The trainer's control routes, outside the public document. On the public address they exist
  // only for a trainer process that reaches the Worker over HTTP (`npm start`) and for the test
  // pool; in production the container reaches them from inside the Worker (container/).
  app.all("/internal/*", (c) =>
    trainerMode(c.env) === "container" ? errorResponse(c, new NotFound()) : internalApp.fetch(c.req.raw, c.env, c.executionCtx),
  );

  let document: ReturnType<typeof openApiDocument> | undefined;
  app.openapi(meta.openapiDocument, (c) => {
    document ??= openApiDocument(app);
    return c.json(document, 200);
  });
  app.openapi(meta.apiReference, Scalar({ url: "/openapi.json", pageTitle: "Tabular ML service API" }) as never);

  app.notFound((c) => errorResponse(c, new NotFound()));
  app.onError((err, c) => errorResponse(c, err));
  return app;
}
