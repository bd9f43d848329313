/**
 * Route middleware that runs before a route's validators: body limits with the route's own 413,
 * the media type a route reads (415 that says what to send), and JSON read leniently (a JSON body
 * is taken as JSON whatever its Content-Type; malformed or empty JSON is a 422, like any other
 * invalid input).
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { BadRequest, UnsupportedMediaType } from "../core/errors";
import type { AppEnv } from "./context";
import { invalidRequest } from "./errors";

/** Refuse bodies over `maxBytes` (declared or streamed) with the route's own error. */
export function limitBody(maxBytes: number, tooLarge: () => Error): MiddlewareHandler<AppEnv> {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw tooLarge();
    },
  });
}

/** Multipart routes: any other media type is a 415 with `hint` (what to send instead). */
export function multipartOnly(hint: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!(c.req.header("Content-Type") ?? "").toLowerCase().startsWith("multipart/form-data")) throw new UnsupportedMediaType(hint);
    // Parsed here (the form validator reuses it) so that a broken body gets our own 400.
    await c.req.formData().catch(() => {
      throw new BadRequest("Malformed multipart body.");
    });
    await next();
  };
}

/** JSON routes: parse the body once; the validator then reads the parsed value. */
export const jsonBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const text = await c.req.text();
  if (text.trim() === "") throw invalidRequest(["body"], "Field required", null, "missing");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw invalidRequest(["body", 0], `JSON decode error: ${(e as Error).message}`, text.slice(0, 200), "json_invalid");
  }
  if (!/^application\/([a-z-.]+\+)?json/i.test(c.req.header("Content-Type") ?? "")) {
    const headers = new Headers(c.req.raw.headers);
    headers.set("Content-Type", "application/json");
    c.req.raw = new Request(c.req.raw, { headers, body: text });
  }
  // The validator reads c.req.json(), which answers from this cache: the body is parsed once.
  c.req.bodyCache.json = Promise.resolve(parsed);
  await next();
};
