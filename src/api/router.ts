import { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { methodNotAllowed } from "hono/method-not-allowed";
import type { AppEnv } from "./context";
import { errorResponse, HttpError, type RequestPart, validationError } from "./errors";

/** Where each validation target sits in a 422 `loc`. */
const PART: Record<string, RequestPart> = { json: "body", form: "body", query: "query", param: "path", header: "header" };

/**
 * A router whose routes are OpenAPI definitions: the request schemas validate, and a failure is
 * thrown as the interface's 422 (one item per issue, with the offending input), never Hono's 400.
 */
export function apiRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error, PART[result.target] ?? "body", (result as { data?: unknown }).data);
    },
  });
}

/** Outermost middleware of an app: a known path asked with a method it does not take answers 405 with Allow. */
export function answer405(app: OpenAPIHono<AppEnv>): MiddlewareHandler<AppEnv> {
  return methodNotAllowed({
    app,
    // Hono answers HEAD on GET routes by itself; Allow lists the methods the API documents.
    onMethodNotAllowed: (c, methods) =>
      errorResponse(c, new HttpError(405, "Method Not Allowed", { Allow: methods.filter((m) => m !== "HEAD").join(", ") })),
  });
}
