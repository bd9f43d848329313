import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { TtlCache } from "../../src/core/ttl-cache";

beforeEach(() => vi.useFakeTimers({ toFake: ["Date"], now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

it("claims a refresh only within the last window of an entry's life, and once per window", () => {
  const cache = new TtlCache<string>(5000, 10);
  cache.set("k", "v");
  vi.setSystemTime(1_000_000 + 2999);
  expect(cache.claimRefresh("k", 2000)).toBe(false); // not yet due
  vi.setSystemTime(1_000_000 + 3000);
  expect(cache.claimRefresh("k", 2000)).toBe(true);
  expect(cache.claimRefresh("k", 2000)).toBe(false); // a burst starts one refresh
  vi.setSystemTime(1_000_000 + 4999);
  expect(cache.claimRefresh("k", 2000)).toBe(false);
  expect(cache.get("k")).toBe("v"); // still served until it expires
  vi.setSystemTime(1_000_000 + 5000);
  expect(cache.claimRefresh("k", 2000)).toBe(false); // expired: the caller looks it up itself
  expect(cache.get("k")).toBeUndefined();
  expect(cache.claimRefresh("missing", 2000)).toBe(false);
});

it("a refresh that set()s the entry gives it a new life and a new window", () => {
  const cache = new TtlCache<string>(5000, 10);
  cache.set("k", "old");
  vi.setSystemTime(1_000_000 + 4000);
  expect(cache.claimRefresh("k", 2000)).toBe(true);
  cache.set("k", "new");
  vi.setSystemTime(1_000_000 + 6000);
  expect(cache.get("k")).toBe("new");
  expect(cache.claimRefresh("k", 2000)).toBe(false);
  vi.setSystemTime(1_000_000 + 7000);
  expect(cache.claimRefresh("k", 2000)).toBe(true);
});
