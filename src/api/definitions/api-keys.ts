/** The API key routes as OpenAPI definitions: create (the secret shown once), list, revoke. */
import { createRoute, z } from "@hono/zod-openapi";
import { pageQuery } from "../pagination";
import { jsonBody } from "../request-body";
import { ApiKey, ApiKeyCreated, ApiKeyPage } from "../schemas/api-keys";
import { AUTH_ERRORS, errorResponses } from "../schemas/common";
import { createdAnswer, idempotencyKeyHeader, jsonAnswer, jsonRequest } from "./parts";

const TAG = ["API keys"];

export const createApiKey = createRoute({
  operationId: "createApiKey",
  method: "post",
  path: "/api-keys",
  tags: TAG,
  summary: "Create an API key of the caller's organization; the answer is the only time its secret is shown",
  middleware: [jsonBody] as const,
  request: {
    headers: idempotencyKeyHeader,
    body: jsonRequest(
      z.object({ name: z.string().trim().min(1).max(100).openapi({ description: "What the key is for, e.g. `ci`", example: "ci key" }) }).strict(),
    ),
  },
  responses: {
    201: createdAnswer(ApiKeyCreated, "The new key, with its secret", "The key: `/api-keys/{api_key_id}` (the path that revokes it)"),
    200: jsonAnswer(
      ApiKey,
      "A repeat of a request with the same Idempotency-Key: the key it created, without its secret, which is shown once only and never stored",
    ),
    ...errorResponses(...AUTH_ERRORS, 413, 422),
  },
});

export const listApiKeys = createRoute({
  operationId: "listApiKeys",
  method: "get",
  path: "/api-keys",
  tags: TAG,
  summary: "List the organization's API keys, revoked ones included, newest first (never their secrets)",
  request: { query: z.object(pageQuery) },
  responses: { 200: jsonAnswer(ApiKeyPage, "A page of keys"), ...errorResponses(...AUTH_ERRORS, 422) },
});

export const revokeApiKey = createRoute({
  operationId: "revokeApiKey",
  method: "delete",
  path: "/api-keys/{api_key_id}",
  tags: TAG,
  summary:
    "Revoke an API key (the calling key and the organization's last key included; a revoked key stays listed). It stops working at once on this isolate and within 30 s everywhere",
  request: { params: z.object({ api_key_id: z.string().openapi({ param: { name: "api_key_id", in: "path" }, description: "API key id" }) }) },
  responses: { 204: { description: "Revoked (also when it already was)" }, ...errorResponses(...AUTH_ERRORS, 404) },
});
