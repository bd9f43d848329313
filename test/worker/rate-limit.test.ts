import { describe, expect, it } from "vitest";
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
    expect(Number.isInteger(retryAfter) && retryAfter > 0).toBe(true);
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
