/**
 * The one place where errors become responses. Services throw domain errors (core/errors.ts); the
 * API's own conditions (no key, rate limit, a method the path does not take) are HttpErrors;
 * request validation is a 422 in the shape the interface gives (pydantic's).
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import {
  BadRequest,
  Conflict,
  type DomainError,
  type FieldIssue,
  Forbidden,
  InvalidInput,
  LengthRequired,
  NotFound,
  TooLarge,
  UnsupportedMediaType,
} from "../core/errors";
import { fieldIssuesFromZod } from "../core/field-issues";
import { ERROR_DETAIL_MAX_CHARS, ERROR_INPUT_MAX_CHARS, ERROR_ITEMS_MAX } from "../core/limits";

/** One item of a 422 body. */
export interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
  input: unknown;
  ctx: Record<string, unknown>;
}

/** A condition of the HTTP layer itself, with its status, `detail` and headers. */
export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly detail: string | ValidationItem[],
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === "string" ? detail : "Validation failed");
  }
}

export const notAuthenticated = () => new HttpError(401, "Not authenticated", { "WWW-Authenticate": "Bearer" });

/** A 422 with one item, for what the schemas cannot say (malformed JSON, an empty body). */
export function invalidRequest(loc: (string | number)[], msg: string, input: unknown, type = "value_error"): HttpError {
  return itemsOf([{ path: loc, message: msg, type, input: input ?? null }]);
}

/** Where a request value was read from: the first element of every 422 `loc`. */
export type RequestPart = "body" | "query" | "path" | "header";

/** Zod issues as 422 items; `input` is what was validated, to report the offending values. */
export function validationError(error: z.ZodError, where: RequestPart, input: unknown): HttpError {
  return itemsOf(fieldIssuesFromZod(error, input, [where]));
}

function itemsOf(all: FieldIssue[]): HttpError {
  const issues = all.slice(0, ERROR_ITEMS_MAX);
  if (all.length > issues.length) {
    const more = all.length - issues.length;
    issues.push({
      path: [all[0].path[0] ?? "body"],
      message: `${more} more errors not listed`,
      type: "too_many_errors",
      input: null,
      ctx: { count: more },
    });
  }
  return new HttpError(
    422,
    issues.map((i) => ({
      loc: i.path.map((p) => (typeof p === "string" ? cut(p) : p)),
      msg: cut(i.message, ERROR_DETAIL_MAX_CHARS),
      type: i.type,
      input: boundedInput(i.input ?? null),
      ctx: Object.fromEntries(Object.entries(i.ctx ?? {}).map(([k, v]) => [k, boundedInput(v)])),
    })),
  );
}

/** Status of each domain error. */
const DOMAIN_STATUS: [new (...args: never[]) => DomainError, ContentfulStatusCode][] = [
  [NotFound, 404],
  [Conflict, 409],
  [Forbidden, 403],
  [BadRequest, 400],
  [UnsupportedMediaType, 415],
  [TooLarge, 413],
  [LengthRequired, 411],
];

function toHttpError(err: unknown): HttpError | null {
  if (err instanceof HttpError) return err;
  // Services name fields by their place in the request body, unless they say otherwise.
  if (err instanceof InvalidInput) return itemsOf(err.issues.map((i) => ({ ...i, path: [i.part ?? "body", ...i.path] })));
  for (const [type, status] of DOMAIN_STATUS) if (err instanceof type) return new HttpError(status, (err as Error).message);
  // Hono's own middleware (body limit, form parsing) signals with HTTPException.
  if (err instanceof HTTPException) return new HttpError(err.status as ContentfulStatusCode, err.message || "Bad request");
  return null;
}

/**
 * The offending value as a 422 echoes it: as given when short, otherwise cut to
 * ERROR_INPUT_MAX_CHARS (a string is cut, a large array or object becomes the start of its JSON
 * text), so that an error never costs more than the request that caused it.
 */
function boundedInput(value: unknown): unknown {
  if (typeof value === "string") return cut(value);
  if (value === null || typeof value !== "object") return value;
  let text: string;
  try {
    text = JSON.stringify(value) ?? "null";
  } catch {
    return "(not shown)";
  }
  return text.length > ERROR_INPUT_MAX_CHARS ? cut(text) : value;
}

/** Names and messages that can carry input (an unknown key of 1 MB) are cut the same way. */
const cut = (text: string, max = ERROR_INPUT_MAX_CHARS) => (text.length > max ? `${text.slice(0, max)}…` : text);

export function errorResponse(c: Context, err: unknown): Response {
  const http = toHttpError(err);
  if (http) {
    // A message may quote the request (a file name, a column name): never at any length.
    const detail = typeof http.detail === "string" ? cut(http.detail, ERROR_DETAIL_MAX_CHARS) : http.detail;
    try {
      return c.json({ detail }, http.status, http.headers);
    } catch (e) {
      // A detail that cannot be serialized is our bug, not the client's: say what the status was.
      console.error("unserializable error detail", e);
      return c.json({ detail: http.message }, http.status, http.headers);
    }
  }
  console.error("unhandled error", err);
  return c.json({ detail: "Internal server error" }, 500);
}
