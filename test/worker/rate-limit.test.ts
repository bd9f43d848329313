import { describe, expect, it } from "vitest";
import { secondsUntilWindowEnds } from "../../src/api/rate-limit";
import { call, json, newOrg } from "./helpers";

/** wrangler.toml: 600 requests per 60 s per API key. */
const LIMIT = 600;
/**
 * The local limiter counts in windows aligned to the wall clock (every 60 s on the minute), so a
 * run that straddles a boundary starts counting again: allow for one reset (600 + 601 + slack).
 */
const MAX_TRIES = 1_300;

describe("rate limit", () => {
  it("answers 429 with Retry-After once a key exceeds its limit, and only for that key", async () => {
    const org = await newOrg();
    let sent = 0;
    let limited: Response | undefined;
    // Cheap authenticated requests (an unknown job id: auth, then 404 without a query), 20 at a time.
    while (!limited && sent < MAX_TRIES) {
      const batch = await Promise.all(Array.from({ length: 20 }, () => call("/jobs/not-a-job", { headers: org.auth })));
      sent += batch.length;
      for (const res of batch) expect([404, 429]).toContain(res.status);
      limited = batch.find((r) => r.status === 429);
    }
    expect(limited, `no 429 after ${sent} requests`).toBeDefined();
    expect(sent).toBeGreaterThan(LIMIT);
    const retryAfter = Number(limited!.headers.get("Retry-After"));
    expect(limited!.headers.get("RateLimit-Scope")).toBe("key");
    expect(Number.isInteger(retryAfter) && retryAfter > 0).toBe(true);
    // The real time until a request passes: what is left of the limiter's 60 s window, not a constant.
    const left = 60 - ((Date.now() / 1000) % 60);
    const off = Math.abs(retryAfter - left);
    expect(Math.min(off, 60 - off)).toBeLessThanOrEqual(2);
    const body: any = await limited!.json();
    expect(body.detail).toMatch(/limit.*exceeded/i);
    expect(body.detail).toMatch(/retry/i);

    // The same key is refused on other routes too; another key is not affected.
    expect((await json("/datasets", org)).status).toBe(429);
    const other = await newOrg();
    expect((await json("/datasets", other)).status).toBe(200);
  });

  it("does not count requests without a valid key against anyone", async () => {
    const org = await newOrg();
    const anon = await Promise.all(Array.from({ length: 50 }, () => call("/jobs/not-a-job", { headers: { Authorization: "Bearer sk_unknown" } })));
    expect(anon.every((r) => r.status === 401)).toBe(true);
    expect((await json("/datasets", org)).status).toBe(200);
  });
});

describe("Retry-After", () => {
  it("is the time left in the current window, so a retry at that time passes", () => {
    expect(secondsUntilWindowEnds(Date.UTC(2026, 0, 1, 12, 0, 0))).toBe(60);
    expect(secondsUntilWindowEnds(Date.UTC(2026, 0, 1, 12, 0, 50))).toBe(10);
    expect(secondsUntilWindowEnds(Date.UTC(2026, 0, 1, 12, 0, 59, 500))).toBe(1);
  });
});

describe("failed authentication", () => {
  const ip = () => `198.51.100.${Math.floor(Math.random() * 250)}-${crypto.randomUUID().slice(0, 8)}`;
  const guess = (address: string, key = "sk_guess") =>
    call("/datasets", { headers: { Authorization: `Bearer ${key}`, "CF-Connecting-IP": address } });

  it("is limited per client address with a 429 and Retry-After", async () => {
    const address = ip();
    const statuses: number[] = [];
    let limited: Response | undefined;
    // 100 failures per 60 s window (wrangler.toml); a window boundary may reset the count once.
    for (let i = 0; i < 26 && !limited; i++) {
      const batch = await Promise.all(Array.from({ length: 10 }, () => guess(address)));
      statuses.push(...batch.map((r) => r.status));
      limited = batch.find((r) => r.status === 429);
    }
    expect(limited, "no 429 after 260 failed authentications").toBeDefined();
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(100);
    expect(Number(limited!.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(limited!.headers.get("RateLimit-Scope")).toBe("address");
    expect(((await limited!.json()) as any).detail).toMatch(/failed authentications/);
  });

  it("of one address does not affect another, nor a valid key from the same address", async () => {
    const address = ip();
    for (let i = 0; i < 12; i++) await Promise.all(Array.from({ length: 10 }, () => guess(address)));
    expect((await guess(ip())).status).toBe(401);
    const org = await newOrg();
    expect((await call("/datasets", { headers: { ...org.auth, "CF-Connecting-IP": address } })).status).toBe(200);
  });
});
