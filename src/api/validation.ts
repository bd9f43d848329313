import type { Context } from "hono";
import { z } from "zod";
import { invalid, validationError } from "./errors";

/** Parse a JSON body against a schema; malformed JSON and schema failures both answer 422. */
export async function parseJsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const text = await c.req.text();
  let body: unknown;
  try {
    body = text.trim() === "" ? undefined : JSON.parse(text);
  } catch (e) {
    throw invalid(["body", 0], `JSON decode error: ${(e as Error).message}`, text.slice(0, 200), "json_invalid");
  }
  if (body === undefined) throw invalid(["body"], "Field required", null, "missing");
  return parseWith(schema, body, "body");
}

export function parseQuery<S extends z.ZodType>(c: Context, schema: S): z.output<S> {
  return parseWith(schema, c.req.query(), "query");
}

export function parseWith<S extends z.ZodType>(schema: S, input: unknown, where: string): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(result.error, where, input);
  return result.data;
}
