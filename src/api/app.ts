import { Hono } from "hono";
import { SERVICE_RUNTIME_VERSION } from "../version";
import { authenticate } from "./auth";
import type { AppEnv } from "./context";
import { ApiError, errorResponse, notFound } from "./errors";
import { allowedMethods } from "./method-not-allowed";
import { datasetRoutes } from "./routes/datasets";
import { publicInternalRoutes } from "./routes/internal";
import { jobRoutes } from "./routes/jobs";
import { modelRoutes } from "./routes/models";
import { uploadRoutes } from "./routes/uploads";

export function createApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get("/health", (c) => c.json({ status: "ok", service_runtime_version: SERVICE_RUNTIME_VERSION }));
  app.route("/", uploadRoutes);
  // The trainer's control routes: the internal secret, never an API key.
  app.route("/", publicInternalRoutes);

  // Every API route needs a key; the published form of the completion endpoint also takes X-API-Key.
  app.use("/api/datasets/:id/complete", authenticate({ allowXApiKey: true }));
  app.use("/datasets/:id/complete", authenticate({ allowXApiKey: true }));
  app.use("/datasets/*", authenticate());
  app.use("/datasets", authenticate());
  app.use("/api/*", authenticate());
  app.use("/jobs/*", authenticate());
  app.use("/jobs", authenticate());
  app.use("/models/*", authenticate());
  app.use("/models", authenticate());

  app.route("/", datasetRoutes);
  app.route("/", jobRoutes);
  app.route("/", modelRoutes);

  app.notFound((c) => {
    const allow = allowedMethods(app, c.req.path);
    // A method the path does allow got here only through a variant Hono does not route (e.g. a
    // trailing slash): that is an unknown route, not a 405 whose Allow names the method itself.
    if (allow.length > 0 && !allow.includes(c.req.method)) {
      return errorResponse(c, new ApiError(405, "Method Not Allowed", { Allow: allow.join(", ") }));
    }
    return errorResponse(c, notFound());
  });
  app.onError((err, c) => errorResponse(c, err));
  return app;
}
