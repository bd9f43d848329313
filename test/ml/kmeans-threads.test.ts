import { afterAll, describe, expect, it } from "vitest";
import { GbdtThreads } from "../../src/container/gbdt-threads";
import { KMEANS_PARALLEL_MIN_CELLS } from "../../src/core/limits";
import { type KMeansResult, kmeans } from "../../src/ml/kmeans/kmeans";
import { Rng } from "../../src/ml/random";
import { counting } from "./helpers/counting-executor";

/** Overlapping Gaussian blobs (many rows near a boundary: bounds fail, rows move for many iterations). */
function blobs(n: number, d: number, k: number, seed: number): Float64Array {
  const rng = new Rng(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
  const centers = Float64Array.from({ length: k * d }, () => 4 * gauss());
  return Float64Array.from({ length: n * d }, (_, t) => centers[(Math.floor(t / d) % k) * d + (t % d)] + 3 * gauss());
}

const bytes = (a: Float64Array | Int32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
function expectSameFit(a: KMeansResult, b: KMeansResult) {
  expect(bytes(a.centers).equals(bytes(b.centers))).toBe(true);
  expect(bytes(a.labels).equals(bytes(b.labels))).toBe(true);
  expect(Object.is(a.inertia, b.inertia)).toBe(true);
  expect(a.iterations).toBe(b.iterations);
  expect(a.restartInertias).toEqual(b.restartInertias);
}

const pools = [new GbdtThreads(2), new GbdtThreads(3)];
afterAll(() => Promise.all(pools.map((p) => p.close())));

describe("k-means on threads", () => {
  const d = 8;
  const k = 8;
  const n = Math.ceil((1.5 * KMEANS_PARALLEL_MIN_CELLS) / (d * k));
  const X = blobs(n, d, k, 7);

  it("fits of 2 and 3 threads are one thread's, bit for bit, restarts included", () => {
    const one = kmeans(X, n, d, { k, nInit: 2, seed: 3 });
    expect(one.iterations).toBeGreaterThan(3);
    for (const pool of pools) {
      const { executor, seen } = counting(pool);
      expectSameFit(kmeans(X, n, d, { k, nInit: 2, seed: 3, parallel: executor }), one);
      expect(seen.opened).toBeGreaterThan(0);
    }
  });

  it("a small table never opens a session on the threads, and fits the same", () => {
    const m = 1000;
    const { executor, seen } = counting(pools[0]);
    expectSameFit(kmeans(X.subarray(0, m * d), m, d, { k, parallel: executor }), kmeans(X.subarray(0, m * d), m, d, { k }));
    expect(seen.opened).toBe(0);
  });
});
