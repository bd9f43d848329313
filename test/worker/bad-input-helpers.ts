/**
 * The bad-input corpus's one assertion, applied to every malformed request: the service answers
 * (no 5xx), says why (`detail`) and answers briefly (an error never costs more than the request
 * that caused it); and once the corpus has run, no job it created is left unfinished.
 */
import { expect } from "vitest";
import { call, type TestOrg } from "./helpers";

/** The largest error body the corpus accepts (a 422 lists a few items, each with a cut `input`). */
const MAX_ERROR_BODY_BYTES = 16 * 1024;

export interface BadRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: BodyInit;
}

/** Send one malformed request and check the answer; returns it for case-specific checks. */
export async function expectHandled(org: TestOrg | null, req: BadRequest): Promise<{ status: number; body: any }> {
  const res = await call(req.path, {
    method: req.method ?? "POST",
    headers: { ...(org?.auth ?? {}), ...req.headers },
    body: req.body,
  });
  const text = await res.text();
  const what = `${req.method ?? "POST"} ${req.path.slice(0, 120)} -> ${res.status} ${text.slice(0, 300)}`;
  expect(res.status, what).toBeLessThan(500);
  if (res.status >= 400) {
    expect(text.length, what).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES);
    const body = JSON.parse(text);
    expect(body.detail, what).toBeTruthy();
    return { status: res.status, body };
  }
  return { status: res.status, body: text && res.headers.get("Content-Type")?.includes("json") ? JSON.parse(text) : text };
}

const TERMINAL = ["succeeded", "failed", "canceled", "rejected"];

/**
 * Every job of the organization ends (a prepared signed upload whose file never came waits for
 * it, as it should: that is not a job left behind by bad input).
 */
export async function expectNoJobLeftUnfinished(org: TestOrg, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const jobs: any[] = [];
    let cursor: string | null = null;
    do {
      const res = await call(`/jobs?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { headers: org.auth });
      const page: any = await res.json();
      jobs.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor);
    const open = jobs.filter((j) => !TERMINAL.includes(j.status) && j.status !== "waiting_for_upload");
    if (open.length === 0) return jobs.length;
    if (Date.now() > deadline) expect(open.map((j) => `${j.type} ${j.id} ${j.status}`)).toEqual([]);
    await new Promise((r) => setTimeout(r, 200));
  }
}
