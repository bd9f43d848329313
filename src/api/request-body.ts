/**
 * Route middleware that runs before a route's validators: body limits with the route's own 413,
 * the media type a route reads (415 that says what to send), and JSON read leniently (a JSON body
 * is taken as JSON whatever its Content-Type; malformed or empty JSON is a 422, like any other
 * invalid input). JSON is bounded before it is parsed: its size (declared, then as it streams in)
 * and its nesting depth, so no body can hold a Worker waiting or exhaust its stack.
 */
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { BadRequest, TooLarge, UnsupportedMediaType } from "../core/errors";
import { INTERNAL_JSON_BODY_MAX_BYTES, JSON_BODY_MAX_BYTES, JSON_MAX_DEPTH } from "../core/limits";
import type { AppEnv } from "./context";
import { invalidRequest } from "./errors";
import { jsonDepthExceeds } from "./json-depth";

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
    await readForm(c);
    await next();
  };
}

/** JSON routes: a body that is not JSON is a 422 before the validator reads it. */
export const jsonBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  await readJson(c, false, JSON_BODY_MAX_BYTES);
  await next();
};

/** The trainer's control routes: their bodies carry a job's output, up to a job record's size. */
export const internalJsonBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  await readJson(c, false, INTERNAL_JSON_BODY_MAX_BYTES);
  await next();
};

/**
 * Routes that take JSON or a multipart file: multipart is parsed here (a broken body is our own
 * 400); anything else is read as JSON, an empty body as `{}`.
 */
export const jsonOrMultipart: MiddlewareHandler<AppEnv> = async (c, next) => {
  if ((c.req.header("Content-Type") ?? "").toLowerCase().startsWith("multipart/form-data")) {
    await readForm(c);
  } else await readJson(c, true, JSON_BODY_MAX_BYTES);
  await next();
};

/**
 * Parsed here (the form validator reuses it) so that a broken body gets our own 400. Every field
 * of our forms is single: a part sent twice (two files) is refused rather than one dropped.
 */
async function readForm(c: Context<AppEnv>): Promise<void> {
  const form = await c.req.formData().catch(() => {
    throw new BadRequest("Malformed multipart body.");
  });
  const seen = new Set<string>();
  for (const name of form.keys()) {
    if (seen.has(name)) {
      const count = form.getAll(name).length;
      throw invalidRequest(["body", name], `Send exactly one '${name}' part; this request has ${count}.`, null, "too_many_parts");
    }
    seen.add(name);
  }
}

async function readJson(c: Context<AppEnv>, emptyIsObject: boolean, maxBytes: number): Promise<void> {
  const text = await boundedText(c.req.raw, maxBytes);
  if (text.trim() === "" && !emptyIsObject) throw invalidRequest(["body"], "Field required", null, "missing");
  let parsed: unknown = {};
  if (text.trim() !== "") {
    if (jsonDepthExceeds(text, JSON_MAX_DEPTH)) {
      throw invalidRequest(["body"], `JSON nested deeper than ${JSON_MAX_DEPTH} levels of arrays and objects`, null, "json_too_deep");
    }
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      throw invalidRequest(["body", 0], `JSON decode error: ${(e as Error).message}`, text.slice(0, 200), "json_invalid");
    }
  }
  if (!/^application\/([a-z-.]+\+)?json/i.test(c.req.header("Content-Type") ?? "")) {
    const headers = new Headers(c.req.raw.headers);
    headers.set("Content-Type", "application/json");
    headers.delete("Content-Length");
    c.req.raw = new Request(c.req.raw.url, { method: c.req.raw.method, headers, body: text || "{}" });
  }
  // The validator reads c.req.json(), which parses the cached text again (an empty body as {}).
  (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text.trim() === "" ? "{}" : text);
  c.req.bodyCache.json = Promise.resolve(parsed);
}

const jsonTooLarge = (maxBytes: number) =>
  new TooLarge(`The JSON body is over the ${maxBytes / (1024 * 1024)} MB limit of a JSON request.`, maxBytes);

/**
 * The body as text, refused with a 413 when it declares more than `maxBytes` (before a byte is
 * read: a client that declares 40 MB and sends 5 bytes is answered at once, not after a timeout)
 * or streams more than it.
 */
async function boundedText(req: Request, maxBytes: number): Promise<string> {
  const declared = req.headers.get("Content-Length");
  if (declared !== null && Number(declared) > maxBytes) throw jsonTooLarge(maxBytes);
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw jsonTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}
