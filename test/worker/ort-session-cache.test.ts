/** Per-isolate ONNX session cache: sharing, failures, bounds, pinning. */
import { describe, expect, it } from "vitest";
import { getSession, type Releasable, SessionCache } from "../../src/inference/session-cache";
import { exportGbdtToOnnx } from "../../src/ml/onnx/export";
import { trainPredictionModel } from "../../src/ml/prediction/train";
import { runGbdtOnnx } from "./run-onnx";

function tinyModelBytes(): Uint8Array {
  const x = Array.from({ length: 120 }, (_, i) => i / 10);
  const res = trainPredictionModel(
    {
      rowCount: 120,
      columns: [
        { name: "x", kind: "numeric", storage: "numeric", values: Float64Array.from(x) },
        { name: "y", kind: "numeric", storage: "numeric", values: Float64Array.from(x, (v) => 3 * v) },
      ],
    },
    { labelColumn: "y", params: { max_rounds: 10 } },
  );
  return exportGbdtToOnnx(res.model);
}

class FakeSession implements Releasable {
  released = false;
  constructor(readonly bytes: number) {}
  async release() {
    this.released = true;
  }
}
const fakeCache = (opts: { maxEntries?: number; maxBytes?: number } = {}) =>
  new SessionCache<FakeSession>({ create: async (b) => new FakeSession(b.byteLength), ...opts });
const bytes = (n: number) => async () => new Uint8Array(n);

describe("session cache", () => {
  it("returns the same ort session for the same key and calls the loader once, also when asked concurrently", async () => {
    const model = tinyModelBytes();
    let loads = 0;
    const load = async () => {
      loads++;
      return model;
    };
    const [a, b] = await Promise.all([getSession("cache-test-v1", load), getSession("cache-test-v1", load)]);
    const c = await getSession("cache-test-v1", load);
    expect(a).toBe(b);
    expect(c).toBe(a);
    expect(loads).toBe(1);
    const out = await runGbdtOnnx(c, Float32Array.of(2, 5), 2, 1);
    expect(out.prediction!.length).toBe(2);
  });

  it("does not cache a failed load or creation", async () => {
    const cache = fakeCache();
    await expect(cache.get("m", async () => Promise.reject(new Error("R2 down")))).rejects.toThrow("R2 down");
    expect(cache.has("m")).toBe(false);
    const s = await cache.get("m", bytes(10));
    expect(s).toBeInstanceOf(FakeSession);

    const failing = new SessionCache<FakeSession>({ create: async () => Promise.reject(new Error("bad model")) });
    await expect(failing.get("m", bytes(10))).rejects.toThrow("bad model");
    expect(failing.size).toBe(0);
  });

  it("evicts and releases the least recently used session beyond maxEntries", async () => {
    const cache = fakeCache({ maxEntries: 2 });
    const a = await cache.get("a", bytes(1));
    const b = await cache.get("b", bytes(1));
    await cache.get("a", bytes(1)); // a is now the most recently used
    await cache.get("c", bytes(1));
    expect([cache.has("a"), cache.has("b"), cache.has("c")]).toEqual([true, false, true]);
    expect(b.released).toBe(true);
    expect(a.released).toBe(false);
  });

  it("evicts beyond maxBytes but always keeps the newest session", async () => {
    const cache = fakeCache({ maxBytes: 100 });
    const a = await cache.get("a", bytes(60));
    await cache.get("b", bytes(150));
    expect(a.released).toBe(true);
    expect([cache.has("a"), cache.has("b")]).toEqual([false, true]);
  });

  it("releases a pinned session only after its user is done", async () => {
    const cache = fakeCache({ maxEntries: 1 });
    let seen: FakeSession | null = null;
    await cache.use("a", bytes(1), async (s) => {
      seen = s;
      await cache.get("b", bytes(1)); // evicts a while it is in use
      expect(cache.has("a")).toBe(false);
      expect(s.released).toBe(false);
    });
    expect(seen!.released).toBe(true);
  });
});
