/** wrangler.toml restates a few rules whose owner is src/core/limits.ts; they must agree. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { RATE_LIMIT_PERIOD_S } from "../../src/core/limits";

const toml = readFileSync(new URL("../../wrangler.toml", import.meta.url), "utf8");
const dockerfile = readFileSync(new URL("../../src/container/Dockerfile", import.meta.url), "utf8");
/** Cloudflare Containers' instance types with a trainer's room (the README's sizing table). */
const TRAINER_INSTANCE_TYPES = ["standard-1", "standard-2", "standard-3", "standard-4"];

describe("wrangler.toml", () => {
  it("counts every rate limiter in windows of RATE_LIMIT_PERIOD_S (the Retry-After is computed from it)", () => {
    const periods = [...toml.matchAll(/simple\s*=\s*\{[^}]*period\s*=\s*(\d+)/g)].map((m) => Number(m[1]));
    expect(periods.length).toBeGreaterThanOrEqual(2);
    for (const p of periods) expect(p).toBe(RATE_LIMIT_PERIOD_S);
  });

  it("sizes the trainer with one setting: an instance type the README describes, no heap size of the image's own", () => {
    const type = /^\s*instance_type\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
    expect(TRAINER_INSTANCE_TYPES).toContain(type);
    expect(dockerfile).not.toMatch(/max-old-space-size/);
  });
});
