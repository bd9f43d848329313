import { describe, expect, it } from "vitest";
import { IsolateCache, type Sized } from "../../src/core/isolate-cache";

/** A value that records its release. */
class Held {
  released = 0;
  constructor(readonly name: string) {}
}
const cache = (opts: { maxBytes?: number; maxEntries?: number } = {}) =>
  new IsolateCache<Held>({ maxBytes: opts.maxBytes ?? 1000, maxEntries: opts.maxEntries, release: (v) => void v.released++ });
const sized =
  (name: string, bytes = 1) =>
  async (): Promise<Sized<Held>> => ({ value: new Held(name), bytes });

describe("IsolateCache", () => {
  it("evicts the least recently used value first", async () => {
    const c = cache({ maxEntries: 2 });
    await c.get("a", sized("a"));
    await c.get("b", sized("b"));
    await c.get("a", sized("a")); // a is now the most recently used
    await c.get("c", sized("c"));
    expect([c.has("a"), c.has("b"), c.has("c")]).toEqual([true, false, true]);
  });

  it("keeps the values within the byte bound", async () => {
    const c = cache({ maxBytes: 100 });
    await c.get("a", sized("a", 40));
    await c.get("b", sized("b", 50));
    expect(c.bytes).toBe(90);
    await c.get("c", sized("c", 30)); // 120 > 100: a goes
    expect([c.has("a"), c.has("b"), c.has("c"), c.bytes]).toEqual([false, true, true, 80]);
  });

  it("keeps the newest value even when it alone is beyond the byte bound", async () => {
    const c = cache({ maxBytes: 100 });
    await c.get("a", sized("a", 40));
    await c.get("b", sized("b", 150));
    expect([c.has("a"), c.has("b"), c.bytes]).toEqual([false, true, 150]);
  });

  it("shares one load among concurrent first requests for a key", async () => {
    const c = cache();
    let loads = 0;
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const load = async () => {
      loads++;
      await gate;
      return { value: new Held("a"), bytes: 1 };
    };
    const both = Promise.all([c.get("a", load), c.use("a", load, (v) => v)]);
    finish();
    const [x, y] = await both;
    expect(x).toBe(y);
    expect(await c.get("a", load)).toBe(x);
    expect(loads).toBe(1);
  });

  it("does not keep a failed load: the next request loads again", async () => {
    const c = cache();
    await expect(c.get("a", async () => Promise.reject(new Error("R2 down")))).rejects.toThrow("R2 down");
    expect([c.has("a"), c.size, c.bytes]).toEqual([false, 0, 0]);
    expect((await c.get("a", sized("a"))).name).toBe("a");
  });

  it("releases a value evicted while in use only after its user is done", async () => {
    const c = cache({ maxEntries: 1 });
    const a = await c.use("a", sized("a"), async (v) => {
      await c.get("b", sized("b")); // evicts a while it is in use
      expect(c.has("a")).toBe(false);
      expect(v.released).toBe(0);
      return v;
    });
    expect(a.released).toBe(1);
  });

  it("releases an evicted value once, and never one still kept", async () => {
    const c = cache({ maxBytes: 10 });
    const a = await c.get("a", sized("a", 6));
    const b = await c.get("b", sized("b", 6));
    expect([a.released, b.released]).toEqual([1, 0]);
    c.delete("b");
    c.delete("b");
    expect(b.released).toBe(1);
  });
});
