import type { OpenAPIHono } from "@hono/zod-openapi";
import { SERVICE_RUNTIME_VERSION } from "../core/version";
import type { AppEnv } from "./context";
import { REQUEST_ID_HEADER } from "./request-log";

/**
 * The service is not published under an open licence (the SDK's package says UNLICENSED too).
 * `identifier` is OpenAPI 3.1's SPDX expression, which the generator's (3.0) type lacks.
 */
const LICENSE = { name: "Proprietary: all rights reserved", identifier: "LicenseRef-Proprietary" };

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
  const document = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Tabular ML service",
      version: "0.1.0",
      description: `Upload tables, train models, run inference and ask why. ML runtime ${SERVICE_RUNTIME_VERSION}. Every route needs \`Authorization: Bearer <API key>\` unless it says otherwise; errors are JSON with a \`detail\`. A path asked with a method it does not take answers \`405 Method Not Allowed\` with an \`Allow\` header listing the methods it takes.`,
      license: LICENSE,
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
  return withRequestIdHeader(document);
}

type Document = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;

/** Every answer carries X-Request-Id (./request-log): added to each response of the document, from one component. */
function withRequestIdHeader(document: Document): Document {
  const ref = { $ref: `#/components/headers/${REQUEST_ID_HEADER}` };
  document.components = {
    ...document.components,
    headers: {
      ...document.components?.headers,
      [REQUEST_ID_HEADER]: {
        description:
          "The request's id, in the service's logs too: the client's own `X-Request-Id` when it sent one of 1–200 letters, digits, `_`, `-`, `.` or `=`, else a new UUID",
        schema: { type: "string", example: "3f9c2a4e-8f6b-4d1e-9a57-2c1b7e0d4f11" },
      },
    },
  };
  const responseObjects = [
    ...Object.values(document.paths ?? {}).flatMap((item) =>
      Object.values(item ?? {}).flatMap((op) => Object.values((op as { responses?: Record<string, unknown> })?.responses ?? {})),
    ),
    ...Object.values(document.components?.responses ?? {}),
  ] as Array<{ $ref?: string; headers?: Record<string, unknown> }>;
  for (const response of responseObjects) {
    if (!response || typeof response !== "object" || "$ref" in response) continue;
    response.headers = { ...response.headers, [REQUEST_ID_HEADER]: ref };
  }
  return document;
}
