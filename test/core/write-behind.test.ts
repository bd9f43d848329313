import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { WriteBehind } from "../../src/core/write-behind";

describe("WriteBehind", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const recorder = () => {
    const writes: { deps: string; items: number[] }[] = [];
    const behind = new WriteBehind<number, string>(
      async (deps, items) => {
        writes.push({ deps, items });
      },
      { delayMs: 25, maxItems: 4 },
    );
    return { writes, behind };
  };

  it("writes the items added within the delay once, with the dependencies of the call that scheduled it", async () => {
    const { writes, behind } = recorder();
    const first = behind.add("request-a", 1);
    expect(first).toBeInstanceOf(Promise);
    expect(behind.add("request-b", 2)).toBeNull();
    expect(behind.add("request-c", 3)).toBeNull();
    expect(writes).toEqual([]);
    await vi.advanceTimersByTimeAsync(25);
    await first;
    expect(writes).toEqual([{ deps: "request-a", items: [1, 2, 3] }]);
    expect(behind.waiting).toBe(0);
  });

  it("schedules a new write for an item added after the previous one went out", async () => {
    const { writes, behind } = recorder();
    const first = behind.add("a", 1);
    await vi.advanceTimersByTimeAsync(25);
    await first;
    const second = behind.add("b", 2);
    expect(second).toBeInstanceOf(Promise);
    await vi.advanceTimersByTimeAsync(25);
    await second;
    expect(writes).toEqual([
      { deps: "a", items: [1] },
      { deps: "b", items: [2] },
    ]);
  });

  it("opens another batch, written by its own opener after the delay, when one is full", async () => {
    const { writes, behind } = recorder();
    const first = behind.add("a", 1);
    for (const [deps, n] of [
      ["b", 2],
      ["c", 3],
      ["d", 4],
    ] as const)
      expect(behind.add(deps, n)).toBeNull();
    const second = behind.add("e", 5);
    expect(second).toBeInstanceOf(Promise);
    expect(writes).toEqual([]); // nothing before the delay, however full
    await vi.advanceTimersByTimeAsync(25);
    await Promise.all([first, second]);
    expect(writes).toEqual([
      { deps: "a", items: [1, 2, 3, 4] },
      { deps: "e", items: [5] },
    ]);
    expect(behind.waiting).toBe(0);
  });
});
