/**
 * A plain HTTP client of the local service, as a user's program would be: Node's fetch (undici,
 * keep-alive connections), Bearer key, JSON or multipart bodies.
 *
 * The service limits every API key to 600 authenticated requests per minute (wrangler.toml
 * `[[ratelimits]]`; locally miniflare counts them in fixed windows aligned to the wall clock,
 * floor(now / 60 s)). A benchmark sending ~800 calls would be refused part of them, so the client
 * counts its own authenticated requests per window and, before a timed series, waits for the next
 * window when the series would not fit in the current one. Waits and any 429 are counted and
 * reported; a 429 is never part of a latency figure.
 */
import { performance } from "node:perf_hooks";

export const RATE_LIMIT_PER_MINUTE = 600;
/** Our own budget per window: below the limit, for clock skew at the window edge. */
const BUDGET = 580;
const WINDOW_MS = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Timed<T = any> {
  status: number;
  body: T;
  /** Client round trip in ms: from calling fetch to the whole body read (before JSON parsing). */
  ms: number;
  bytes: number;
  headers: Headers;
}

export class Client {
  private epoch = -1;
  private used = 0;
  /** Seconds spent waiting for a new rate-limit window, and how often. */
  waitedS = 0;
  waits = 0;
  /** 429 responses seen (each one retried after its window). */
  refused = 0;
  /** Authenticated requests sent. */
  sent = 0;

  constructor(
    readonly base: string,
    private readonly key: string,
  ) {}

  private roll(): void {
    const e = Math.floor(Date.now() / WINDOW_MS);
    if (e !== this.epoch) {
      this.epoch = e;
      this.used = 0;
    }
  }

  private async nextWindow(): Promise<void> {
    const t = Date.now();
    const wait = (Math.floor(t / WINDOW_MS) + 1) * WINDOW_MS - t + 250;
    this.waits++;
    this.waitedS += wait / 1000;
    await sleep(wait);
    this.roll();
  }

  /** Makes sure `n` authenticated requests fit in the current window (waits for the next one if not). */
  async reserve(n: number): Promise<void> {
    this.roll();
    if (this.used + Math.min(n, BUDGET) > BUDGET) await this.nextWindow();
  }

  /** An authenticated request, timed; JSON bodies parsed (after the clock stops). */
  async call<T = any>(path: string, init: RequestInit = {}): Promise<Timed<T>> {
    const extra = init.headers as Record<string, string> | undefined;
    for (;;) {
      await this.reserve(1);
      this.used++;
      this.sent++;
      const headers = { Authorization: `Bearer ${this.key}`, ...extra };
      const t = performance.now();
      const res = await fetch(this.base + path, { ...init, headers });
      const text = await res.text();
      const ms = performance.now() - t;
      if (res.status === 429) {
        this.refused++;
        await this.nextWindow();
        continue;
      }
      return { status: res.status, body: parse(text), ms, bytes: text.length, headers: res.headers };
    }
  }

  /** An unauthenticated request (GET /health), timed; not counted by the rate limit. */
  async open(path: string): Promise<Timed> {
    const t = performance.now();
    const res = await fetch(this.base + path);
    const text = await res.text();
    return { status: res.status, body: parse(text), ms: performance.now() - t, bytes: text.length, headers: res.headers };
  }

  json<T = any>(path: string, body: unknown): Promise<Timed<T>> {
    return this.call<T>(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  }

  /** Multipart POST with a CSV `file` part and string fields. */
  upload<T = any>(
    path: string,
    csv: string | Uint8Array,
    filename: string,
    fields: Record<string, string> = {},
    headers?: Record<string, string>,
  ): Promise<Timed<T>> {
    const form = new FormData();
    form.append("file", new File([csv], filename, { type: "text/csv" }));
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    return this.call<T>(path, { method: "POST", body: form, headers });
  }

  /** Polls GET /jobs/{id} until the job is terminal; returns it with the client wall time since `sinceMs`. */
  async untilDone(jobId: string, sinceMs: number, opts: { everyMs?: number; timeoutS?: number } = {}) {
    const every = opts.everyMs ?? 200;
    const end = Date.now() + (opts.timeoutS ?? 900) * 1000;
    for (;;) {
      const r = await this.call(`/jobs/${jobId}`);
      if (r.status !== 200) throw new Error(`GET /jobs/${jobId}: ${r.status} ${JSON.stringify(r.body)}`);
      if (TERMINAL.has(r.body.status)) return { job: r.body, wallS: (performance.now() - sinceMs) / 1000 };
      if (Date.now() > end) throw new Error(`job ${jobId} still ${r.body.status} after ${opts.timeoutS ?? 900} s`);
      await sleep(every);
    }
  }
}

export const TERMINAL = new Set(["succeeded", "failed", "canceled", "rejected"]);

function parse(text: string): any {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export interface Stats {
  n: number;
  p50: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

/** Percentiles by nearest rank (p99 of fewer than 100 samples is the maximum). */
export function stats(xs: number[]): Stats {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  const rank = (p: number) => s[Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1))];
  return { n, p50: rank(0.5), p99: rank(0.99), mean: s.reduce((a, b) => a + b, 0) / n, min: s[0], max: s[n - 1] };
}
