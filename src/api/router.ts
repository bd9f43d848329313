import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./context";
import { type RequestPart, validationError } from "./errors";

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
