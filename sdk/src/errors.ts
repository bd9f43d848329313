import type { components } from "./schema.js";

type ValidationItem = components["schemas"]["ValidationItem"];
export type Job = components["schemas"]["JobDetail"];

/** The service answered with an error: its status and its `detail` (a sentence, or the 422 items). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | ValidationItem[],
    readonly body: unknown,
  ) {
    super(`${status}: ${describeDetail(detail)}`);
    this.name = "ApiError";
  }
}

/** A job that ended otherwise than `succeeded` (failed, canceled or rejected). */
export class JobFailedError extends Error {
  constructor(readonly job: Job) {
    super(`Job ${job.id} ${job.status}${job.error_message ? `: ${job.error_message}` : ""}`);
    this.name = "JobFailedError";
  }
}

/** A 422's items as `body.field: message` lines; any other detail as it is. */
export function describeDetail(detail: string | ValidationItem[]): string {
  if (typeof detail === "string") return detail;
  return detail.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; ");
}

/** The ApiError of an error answer's parsed body (its `detail` when it has one, else `fallback`). */
export function apiError(status: number, body: unknown, fallback: string): ApiError {
  const detail = (body as { detail?: unknown } | null)?.detail;
  return new ApiError(status, typeof detail === "string" || Array.isArray(detail) ? (detail as string | ValidationItem[]) : fallback, body);
}

/** The ApiError of a non-2xx response. */
export async function errorOf(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => "");
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (an R2 signed-URL refusal is XML): keep the text
  }
  return apiError(res.status, body, text.slice(0, 500) || res.statusText || `HTTP ${res.status}`);
}

/**
 * No answer came from the service, after the retries that were safe to make. `sent`: the request
 * may have reached the service (a reset or a closed connection after sending) or surely did not
 * (the connection could not be opened); `code` is the network error's (ECONNRESET, EPIPE…).
 */
export class ConnectionFailedError extends Error {
  readonly sent: boolean;
  readonly code: string;
  constructor(
    method: string,
    url: string,
    failure: { kind: "unsent" | "lost"; code: string },
    readonly attempts: number,
    repeatable: boolean,
    cause: unknown,
  ) {
    const how = failure.kind === "lost" ? "sent, but no answer came back" : "the connection could not be opened";
    const why = repeatable ? "" : "; not retried: repeating it could do it twice";
    super(`${method} ${url.split("?")[0]}: ${how} (${failure.code}); ${attempts} attempt(s)${why}`, { cause });
    this.name = "ConnectionFailedError";
    this.sent = failure.kind === "lost";
    this.code = failure.code;
  }
}
