/** Pieces every route definition uses. */
import { z } from "@hono/zod-openapi";

/** A JSON answer with its schema. */
export const jsonAnswer = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });

/** A required JSON request body. */
export const jsonRequest = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });

/** The header that makes a creating request safe to repeat. */
export const idempotencyKeyHeader = z.object({
  "idempotency-key": z.string().optional().openapi({ description: "Repeat the request safely: the first answer is returned again" }),
});
