import { afterAll, describe, expect, it } from "vitest";
import { GbdtThreads } from "../../src/container/gbdt-threads";
import { SEARCH_PARALLEL_MIN_CELLS } from "../../src/core/limits";
import { buildSearchIndexSteps } from "../../src/ml/knn/build";
import { idTableFromValues } from "../../src/ml/knn/ids";
import { type ScanStats, searchIndex, searchRows } from "../../src/ml/knn/search";
import type { SearchIndex, SearchIndexKind } from "../../src/ml/knn/types";
import { Rng } from "../../src/ml/random";
import { counting } from "./helpers/counting-executor";

function build(x: Float32Array, dims: number, kind: SearchIndexKind): SearchIndex {
  const rows = x.length / dims;
  const ids = idTableFromValues(Array.from({ length: rows }, (_, i) => i));
  const steps = buildSearchIndexSteps(x, rows, dims, ids, { kind, seed: 0, targetRecall: 0.95 });
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** One isotropic Gaussian (no structure: every query scans many cells), with duplicated rows (exact ties). */
function gauss(n: number, d: number, rng: Rng): Float32Array {
  const x = Float32Array.from({ length: n * d }, () => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next()));
  for (let i = 0; i < n / 10; i++) x.copyWithin((n - 1 - i) * d, i * d, i * d + d);
  return x;
}

const bytes = (a: Float64Array | Int32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

const pools = [new GbdtThreads(2), new GbdtThreads(3)];
afterAll(() => Promise.all(pools.map((p) => p.close())));

describe("knn search on threads", () => {
  const d = 8;
  const n = 6000;
  const x = gauss(n, d, new Rng(1));
  const numQueries = Math.ceil((2 * SEARCH_PARALLEL_MIN_CELLS) / (n * d));
  const queries = Float64Array.from(gauss(numQueries, d, new Rng(2)));
  queries.set(x.subarray(0, d), 0); // a query on a duplicated row

  for (const kind of ["exact", "ivf"] as const) {
    it(`${kind}: the rows, distances and scan counts of 2 and 3 threads are one thread's, bit for bit`, () => {
      const index = build(x, d, kind);
      const oneStats: ScanStats = { scanned: 0 };
      const one = searchRows(index, queries, numQueries, 10, index.nprobe, oneStats);
      for (const pool of pools) {
        const { executor, seen } = counting(pool);
        const stats: ScanStats = { scanned: 0 };
        const got = searchRows(index, queries, numQueries, 10, index.nprobe, stats, executor);
        expect(seen.opened).toBe(1);
        expect(bytes(got.rows).equals(bytes(one.rows))).toBe(true);
        expect(bytes(got.dist2).equals(bytes(one.dist2))).toBe(true);
        expect(stats.scanned).toBe(oneStats.scanned);
        expect(searchIndex(index, queries, numQueries, 10, executor)).toEqual(searchIndex(index, queries, numQueries, 10));
      }
    });
  }

  it("a small search never opens a session on the threads", () => {
    const index = build(x.subarray(0, 1000 * d), d, "exact");
    const { executor, seen } = counting(pools[0]);
    expect(searchRows(index, queries, 50, 5, index.nprobe, undefined, executor)).toEqual(searchRows(index, queries, 50, 5));
    expect(seen.opened).toBe(0);
  });
});
