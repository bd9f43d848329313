/**
 * A `fetch` for requests with a streamed body, over node:http(s). Why not Node's own fetch:
 * undici's fetch keeps every chunk of a streamed request body in memory until the request ends
 * (nodejs/undici#4058, open), so the signed upload of a 3.6 GB file held 3.6 GB; node:http sends
 * the body as the server reads it (the socket's backpressure), in tens of MB whatever the size.
 * Errors keep node's codes (ECONNREFUSED, ECONNRESET, EPIPE…), which ./repeat reads as fetch's.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";

/** Answers that never have a body (a Response refuses one for these). */
const NO_BODY_STATUSES = new Set([101, 204, 205, 304]);

export function streamingFetch(req: Request): Promise<Response> {
  const url = new URL(req.url);
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  const headers: Record<string, string> = {};
  req.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return new Promise<Response>((resolve, reject) => {
    let answered = false;
    const outgoing = send(url, { method: req.method, headers }, (incoming) => {
      answered = true;
      resolve(responseOf(req.method, incoming));
    });
    outgoing.on("error", (e) => {
      if (!answered) reject(e);
    });
    if (!req.body) {
      outgoing.end();
      return;
    }
    // An answer before the whole body was sent (a refusal) ends the upload: the error that follows
    // is not the caller's, who has the answer.
    pipeline(Readable.fromWeb(req.body as unknown as NodeReadableStream<Uint8Array>), outgoing).catch((e) => {
      if (!answered) reject(e);
    });
  });
}

function responseOf(method: string, incoming: IncomingMessage): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const status = incoming.statusCode ?? 0;
  const empty = method.toUpperCase() === "HEAD" || NO_BODY_STATUSES.has(status);
  if (empty) incoming.resume();
  const body = empty ? null : (Readable.toWeb(incoming) as unknown as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: incoming.statusMessage ?? "", headers });
}
