/**
 * Route middleware that runs before a route's validators: body limits with the route's own 413,
 * the media type a route reads (415 that says what to send), and JSON read leniently (a JSON body
 * is taken as JSON whatever its Content-Type; malformed or empty JSON is a 422, like any other
 * invalid input).
 */
import type { Context, MiddlewareHandler } from "hono";
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

/** JSON routes: a body that is not JSON is a 422 before the validator reads it. */
export const jsonBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  await readJson(c, false);
  await next();
};

/**
 * Routes that take JSON or a multipart file: multipart is parsed here (a broken body is our own
 * 400); anything else is read as JSON, an empty body as `{}`.
 */
export const jsonOrMultipart: MiddlewareHandler<AppEnv> = async (c, next) => {
  if ((c.req.header("Content-Type") ?? "").toLowerCase().startsWith("multipart/form-data")) {
    await c.req.formData().catch(() => {
      throw new BadRequest("Malformed multipart body.");
    });
  } else await readJson(c, true);
  await next();
};

async function readJson(c: Context<AppEnv>, emptyIsObject: boolean): Promise<void> {
  const text = await c.req.text();
  if (text.trim() === "" && !emptyIsObject) throw invalidRequest(["body"], "Field required", null, "missing");
  let parsed: unknown = {};
  if (text.trim() !== "") {
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      throw invalidRequest(["body", 0], `JSON decode error: ${(e as Error).message}`, text.slice(0, 200), "json_invalid");
    }
  }
  if (!/^application\/([a-z-.]+\+)?json/i.test(c.req.header("Content-Type") ?? "")) {
    const headers = new Headers(c.req.raw.headers);
    headers.set("Content-Type", "application/json");
    c.req.raw = new Request(c.req.raw, { headers, body: text || "{}" });
  }
  // The validator reads c.req.json(), which parses the cached text again (an empty body as {}).
  (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text.trim() === "" ? "{}" : text);
  c.req.bodyCache.json = Promise.resolve(parsed);
}
