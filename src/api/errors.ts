import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";

/** One item of a 422 body, in the shape the interface gives (pydantic's). */
export interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
  input: unknown;
  ctx: Record<string, unknown>;
}

/**
 * The one error type of the API. Services throw it; `errorResponse` turns it into JSON with a
 * `detail` in one place, so every route answers errors the same way.
 */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly detail: string | ValidationItem[],
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === "string" ? detail : "Validation failed");
  }
}

export const notAuthenticated = () =>
  new ApiError(401, "Not authenticated", { "WWW-Authenticate": "Bearer" });
export const forbidden = () => new ApiError(403, "Forbidden");
export const notFound = () => new ApiError(404, "Not found");
export const conflict = (detail: string) => new ApiError(409, detail);

/** A 422 with a single item, for checks zod cannot express (e.g. "exactly one of"). */
export function invalid(loc: (string | number)[], msg: string, input: unknown, type = "value_error"): ApiError {
  return new ApiError(422, [{ loc, msg, type, input: input ?? null, ctx: {} }]);
}

/** Map zod issues to the 422 items. `where` is the first element of `loc`: body, query, path, form. */
export function validationError(error: z.ZodError, where: string, input: unknown): ApiError {
  const items = error.issues.map((issue): ValidationItem => {
    const value = valueAt(input, issue.path as PropertyKey[]);
    return {
      loc: [where, ...issue.path.map((p) => (typeof p === "number" ? p : String(p)))],
      msg: messageFor(issue, value),
      type: typeFor(issue, value),
      input: value === undefined ? null : value,
      ctx: contextFor(issue),
    };
  });
  return new ApiError(422, items);
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let cur: unknown = input;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

function typeFor(issue: z.core.$ZodIssue, value: unknown): string {
  switch (issue.code) {
    case "invalid_type":
      return value === undefined ? "missing" : `${issue.expected}_type`;
    case "too_small":
      return issue.origin === "string" || issue.origin === "array" ? "too_short" : "greater_than_equal";
    case "too_big":
      return issue.origin === "string" || issue.origin === "array" ? "too_long" : "less_than_equal";
    case "invalid_value":
      return "enum";
    case "invalid_format":
      return `${issue.format}_parsing`;
    case "unrecognized_keys":
      return "extra_forbidden";
    default:
      return "value_error";
  }
}

function messageFor(issue: z.core.$ZodIssue, value: unknown): string {
  if (issue.code === "invalid_type" && value === undefined) return "Field required";
  return issue.message;
}

function contextFor(issue: z.core.$ZodIssue): Record<string, unknown> {
  switch (issue.code) {
    case "too_small":
      return { min: Number(issue.minimum) };
    case "too_big":
      return { max: Number(issue.maximum) };
    case "invalid_value":
      return { expected: issue.values.map(String).join(", ") };
    case "unrecognized_keys":
      return { keys: issue.keys };
    default:
      return {};
  }
}

export function errorResponse(c: Context, err: unknown): Response {
  if (err instanceof ApiError) {
    return c.json({ detail: err.detail }, err.status, err.headers);
  }
  console.error("unhandled error", err);
  return c.json({ detail: "Internal server error" }, 500);
}
