/** Routes about the service itself: health, the OpenAPI document, the interactive reference. */
import { createRoute, z } from "@hono/zod-openapi";

const TAG = ["Service"];

export const health = createRoute({
  operationId: "getHealth",
  method: "get",
  path: "/health",
  tags: TAG,
  summary: "Liveness, and the ML runtime version",
  security: [],
  responses: {
    200: {
      description: "The service is up",
      content: { "application/json": { schema: z.object({ status: z.literal("ok"), service_runtime_version: z.string() }) } },
    },
  },
});

export const openapiDocument = createRoute({
  operationId: "getOpenApiDocument",
  method: "get",
  path: "/openapi.json",
  tags: TAG,
  summary: "This document (OpenAPI 3.1)",
  security: [],
  responses: { 200: { description: "The OpenAPI document", content: { "application/json": { schema: z.record(z.string(), z.unknown()) } } } },
});

export const apiReference = createRoute({
  operationId: "getApiReference",
  method: "get",
  path: "/docs",
  tags: TAG,
  summary: "Interactive API reference (HTML)",
  security: [],
  responses: { 200: { description: "An HTML page", content: { "text/html": { schema: z.string() } } } },
});
