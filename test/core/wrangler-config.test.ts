/** wrangler.toml restates a few rules whose owner is src/core/limits.ts; they must agree. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { RATE_LIMIT_PERIOD_S } from "../../src/core/limits";

const toml = readFileSync(new URL("../../wrangler.toml", import.meta.url), "utf8");

describe("wrangler.toml", () => {
  it("counts every rate limiter in windows of RATE_LIMIT_PERIOD_S (the Retry-After is computed from it)", () => {
    const periods = [...toml.matchAll(/simple\s*=\s*\{[^}]*period\s*=\s*(\d+)/g)].map((m) => Number(m[1]));
    expect(periods.length).toBeGreaterThanOrEqual(2);
    for (const p of periods) expect(p).toBe(RATE_LIMIT_PERIOD_S);
  });
});
