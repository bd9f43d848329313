/** Pieces every route definition uses. */
import { z } from "@hono/zod-openapi";
import { DIRECT_UPLOAD_MAX_BYTES } from "../../core/limits";

/** A JSON answer with its schema. */
export const jsonAnswer = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });

/**
 * A 201 or 202 answer: its body, and a `Location` header naming where to read what was created
 * (201) or the job doing the work (202). The routes build it with ../locations.ts.
 */
export const createdAnswer = <T extends z.ZodType>(schema: T, description: string, location: string) => ({
  description,
  headers: {
    Location: { description: location, required: true, schema: { type: "string" as const, example: "/jobs/job_9c8b7a6f5e4d4c3ba2f10e9d8c7b6a5f" } },
  },
  content: { "application/json": { schema } },
});

/** A required JSON request body. */
export const jsonRequest = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });

/** The header that makes a creating request safe to repeat. */
export const idempotencyKeyHeader = z.object({
  "idempotency-key": z.string().optional().openapi({ description: "Repeat the request safely: the first answer is returned again" }),
});

/**
 * A file sent in a multipart body (upload, sync inference, effect), at most DIRECT_UPLOAD_MAX_BYTES:
 * the limit is stated as the schema's maxLength, so the SDK reads it from the OpenAPI document
 * instead of restating it.
 */
export const directFile = (what: string, more = "") =>
  z.file().openapi({
    type: "string",
    format: "binary",
    maxLength: DIRECT_UPLOAD_MAX_BYTES,
    description: `${what}, at most ${DIRECT_UPLOAD_MAX_BYTES / 1024 / 1024} MB${more}`,
  });
