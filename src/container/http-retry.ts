/**
 * The trainer's HTTP calls, to the Worker's control routes and straight to R2 (presigned URLs the
 * Worker signed): a network error or a 5xx answer is tried again a few times, backing off, so a
 * blip does not cost a long job; any other answer is the caller's to judge.
 */
import { logWarning } from "./log";

const RETRIES = 4;

/** `what` names the call in the log and in the error after the last try. */
export async function fetchRetrying(what: string, url: string | URL, init: RequestInit): Promise<Response> {
  for (let i = 0; ; i++) {
    let res: Response;
    try {
      res = await fetch(url, init);
    } catch (e) {
      // Also the stale keep-alive socket: after seconds of synchronous work (finishing the
      // columns of a large table) the server has closed it, and the next request fails at once
      // (EPIPE, "other side closed"). A fresh connection then works.
      const failed = `${what}: ${fetchFailure(e)}`;
      if (i >= RETRIES) throw new Error(`${failed} (${i + 1} tries)`, { cause: e });
      logWarning(`${failed}; trying again`);
      await sleep(250 * 2 ** i);
      continue;
    }
    if (res.status >= 500 && i < RETRIES) {
      await res.body?.cancel().catch(() => {});
      await sleep(250 * 2 ** i);
      continue;
    }
    return res;
  }
}

/**
 * What an S3 API error answer says: its status and the Code and Message of its XML body, e.g.
 * "HTTP 403 SignatureDoesNotMatch: The request signature we calculated does not match…".
 */
export async function s3Refusal(res: Response): Promise<string> {
  const text = (await res.text().catch(() => "")).slice(0, 2000);
  const tag = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)?.[1];
  const code = tag("Code");
  const message = tag("Message");
  if (code) return `HTTP ${res.status} ${code}${message ? `: ${message}` : ""}`;
  return `HTTP ${res.status}${text ? ` ${text.slice(0, 300)}` : ""}`;
}

/** undici says only "fetch failed"; what failed is in `cause` (its code and message). */
function fetchFailure(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const cause = e instanceof Error ? (e.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (!cause) return message;
  const detail = [cause.code, cause.message].filter((x) => typeof x === "string" && x).join(": ");
  return detail ? `${message} (${detail})` : message;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
