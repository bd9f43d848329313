/**
 * Response-side OpenAPI schemas shared by every route: error bodies, the `responses` fragments
 * for error statuses, and the version references used in job resources and upload answers.
 * Documentation only: responses are not validated against these at runtime.
 */
import { z } from "@hono/zod-openapi";
import { JSON_BODY_MAX_BYTES } from "../../core/limits";

/** Every error except 422: `{ detail: string }`. */
const ErrorBody = z
  .object({
    detail: z.string().openapi({ description: "Human-readable reason, e.g. `Not authenticated`, `Forbidden`, `Not found`" }),
  })
  .openapi("Error", { example: { detail: "Not found" } });

/** One problem of a 422, in pydantic's shape. */
const ValidationItem = z
  .object({
    loc: z
      .array(z.union([z.string(), z.number().int()]))
      .openapi({ description: "Where the problem is: first `body`, `query`, `path` or `form`, then the field path (array indexes are integers)" }),
    msg: z.string().openapi({ description: "What is wrong, e.g. `Field required`" }),
    type: z
      .string()
      .openapi({ description: "Machine-readable kind, e.g. `missing`, `too_long`, `less_than_equal`, `enum`, `extra_forbidden`, `value_error`" }),
    input: z
      .union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), z.record(z.string(), z.unknown())])
      .openapi({ description: "The offending value as received (null when absent)" }),
    ctx: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'Limits of the failed check, e.g. `{min: 1}`, `{max: 200}`, `{expected: "a, b"}`; empty when none' }),
  })
  .openapi("ValidationItem");

/** The 422 body: one item per problem. */
const ValidationErrorBody = z.object({ detail: z.array(ValidationItem) }).openapi("ValidationError", {
  example: {
    detail: [{ loc: ["query", "limit"], msg: "Too big: expected number to be <=200", type: "less_than_equal", input: "500", ctx: { max: 200 } }],
  },
});

/** Status codes an error response may be documented with. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 411 | 413 | 415 | 422 | 429;

/**
 * Errors of every route that needs an API key. 403 is listed on each, as the interface lists it
 * for every endpoint, though a key grants its organization everything (see DESCRIPTIONS).
 */
export const AUTH_ERRORS = [401, 403, 429] as const;

const DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: "Malformed request (e.g. an unreadable multipart body, or a signed upload whose Content-Type, size or checksum does not match what was declared); the detail says what is wrong",
  401: 'Missing or invalid API key (`detail`: "Not authenticated"); the response carries `WWW-Authenticate: Bearer`',
  403: 'Not permitted (`detail`: "Forbidden"). An API key may do everything in its organization, so today only a signed upload URL answers it (an invalid or expired token)',
  404: 'Not found (also for another organization\'s resources); `detail`: "Not found"',
  405: "Method not allowed on this path; the `Allow` header lists the methods that are",
  409: "The resource's state does not allow this (the detail says why)",
  411: "The Content-Length header is required",
  413: `Payload too large: over the route's limit, which the detail names (a JSON body: ${JSON_BODY_MAX_BYTES / (1024 * 1024)} MB; uploads: 30 MB, and the signed-URL flow for larger files; inference: 30 MB or 5 million cells per call)`,
  415: "Unsupported media type: the request is not multipart/form-data, or the file is not CSV (.csv, .tsv, .txt) or Parquet (.parquet)",
  422: "Request validation failed: one item per problem, in the shape {loc, msg, type, input, ctx}",
  429: "Rate limit exceeded; retry after the delay in Retry-After",
};

const HEADERS: Partial<Record<ErrorStatus, Record<string, { description: string; schema: { type: "string" | "integer"; example?: unknown } }>>> = {
  401: { "WWW-Authenticate": { description: "The authentication scheme to use", schema: { type: "string", example: "Bearer" } } },
  405: { Allow: { description: "Comma-separated methods allowed on this path", schema: { type: "string", example: "GET, DELETE" } } },
  429: { "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer", example: 10 } } },
};

type ErrorResponse<S extends ErrorStatus> = {
  description: string;
  headers?: Record<string, { description: string; schema: { type: "string" | "integer"; example?: unknown } }>;
  content: { "application/json": { schema: S extends 422 ? typeof ValidationErrorBody : typeof ErrorBody } };
};

/**
 * The `responses` entries of the given error statuses, for `createRoute`:
 * `responses: { 200: {...}, ...errorResponses(...AUTH_ERRORS, 404, 422) }`.
 */
export function errorResponses<const S extends readonly ErrorStatus[]>(...statuses: S): { [K in S[number] as `${K}`]: ErrorResponse<K> } {
  const out: Record<string, ErrorResponse<ErrorStatus>> = {};
  for (const s of statuses) {
    const schema = s === 422 ? ValidationErrorBody : ErrorBody;
    const headers = HEADERS[s];
    out[String(s)] = {
      description: DESCRIPTIONS[s],
      ...(headers ? { headers } : {}),
      content: { "application/json": { schema } },
    } as ErrorResponse<ErrorStatus>;
  }
  return out as { [K in S[number] as `${K}`]: ErrorResponse<K> };
}

/** A dataset version as referenced from jobs and upload answers. */
export const DatasetVersionRef = z
  .object({
    id: z.string().openapi({ description: "Dataset id" }),
    version_id: z.string().openapi({ description: "Dataset version id" }),
    version_number: z.number().int(),
    archived: z.boolean().openapi({ description: "True when the dataset version is archived (soft-deleted)" }),
  })
  .openapi("DatasetVersionRef");

/** A model version as referenced from jobs. */
export const ModelVersionRef = z
  .object({
    id: z.string().openapi({ description: "Model id" }),
    version_id: z.string().openapi({ description: "Model version id" }),
    version_number: z.number().int(),
  })
  .openapi("ModelVersionRef");

/**
 * `schema | null` for a schema registered as a component. Not `.nullable()`: zod-to-openapi 9
 * then writes the null into the component itself, or an `allOf` that still rejects null.
 */
export const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);

/** `next_cursor` of every paged list. */
export const nextCursor = z
  .string()
  .nullable()
  .openapi({ description: "Pass as the `cursor` query parameter to get the next page; null when there are no more pages" });
