import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { TtlCache } from "../../src/core/ttl-cache";

const T0 = 1_000_000;
beforeEach(() => vi.useFakeTimers({ toFake: ["Date"], now: T0 }));
afterEach(() => vi.useRealTimers());

it("claims a refresh only within the last window of an entry's life, and once", () => {
  const cache = new TtlCache<string>(6000, 10);
  cache.set("k", "v");
  vi.setSystemTime(T0 + 3999);
  expect(cache.claimRefresh("k", 2000)).toBe(false); // not yet due
  vi.setSystemTime(T0 + 4000);
  expect(cache.claimRefresh("k", 2000)).toBe(true);
  expect(cache.claimRefresh("k", 2000)).toBe(false); // a burst starts one refresh
  vi.setSystemTime(T0 + 5999);
  expect(cache.claimRefresh("k", 2000)).toBe(false);
  expect(cache.get("k")).toBe("v"); // still served until it expires
  vi.setSystemTime(T0 + 6000);
  expect(cache.claimRefresh("k", 2000)).toBe(false); // expired: the caller looks it up itself
  expect(cache.get("k")).toBeUndefined();
  expect(cache.claimRefresh("missing", 2000)).toBe(false);
});

it("a refresh that set()s the entry gives it a new life and a new window", () => {
  const cache = new TtlCache<string>(6000, 10);
  cache.set("k", "old");
  vi.setSystemTime(T0 + 5000);
  expect(cache.claimRefresh("k", 2000)).toBe(true);
  cache.set("k", "new");
  vi.setSystemTime(T0 + 8000);
  expect(cache.get("k")).toBe("new");
  expect(cache.claimRefresh("k", 2000)).toBe(false);
  vi.setSystemTime(T0 + 9000);
  expect(cache.claimRefresh("k", 2000)).toBe(true);
});

it("uses at most a third of an entry's own time as its window (an entry kept for less than the cache's time)", () => {
  const cache = new TtlCache<string>(30_000, 10);
  cache.set("k", "v", 15_000);
  vi.setSystemTime(T0 + 9_999);
  expect(cache.claimRefresh("k", 10_000)).toBe(false); // a 10 s window would have opened at 5 s
  vi.setSystemTime(T0 + 10_000);
  expect(cache.claimRefresh("k", 10_000)).toBe(true);
});
