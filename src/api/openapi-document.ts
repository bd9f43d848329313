import type { OpenAPIHono } from "@hono/zod-openapi";
import { SERVICE_RUNTIME_VERSION } from "../core/version";
import type { AppEnv } from "./context";

/** The OpenAPI 3.1 document of an app whose routes are OpenAPI definitions. */
export function openApiDocument(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "An API key of the organization: `Authorization: Bearer sk_…`",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKey", {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: "The same key, accepted by the upload completion endpoint only",
  });
  return app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Tabular ML service",
      version: "0.1.0",
      description: `Upload tables, train models, run inference and ask why. ML runtime ${SERVICE_RUNTIME_VERSION}. Every route needs \`Authorization: Bearer <API key>\` unless it says otherwise; errors are JSON with a \`detail\`.`,
    },
    // Relative: the document is served by the API it describes, wherever that runs.
    servers: [{ url: "/" }],
    security: [{ bearer: [] }],
    tags: [
      { name: "Datasets", description: "Upload tables (direct or through a signed URL), list, preview, look up rows" },
      { name: "Models", description: "Train, retrain, list, download artifacts" },
      { name: "Inference", description: "Predictions from a trained model" },
      { name: "Jobs", description: "Ingestion, training and inference jobs: poll, cancel, retry" },
      { name: "API keys", description: "Create, list and revoke the organization's API keys" },
      { name: "Service", description: "Health and this documentation" },
    ],
  });
}
