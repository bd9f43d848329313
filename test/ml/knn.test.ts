import { describe, expect, it } from "vitest";
import { buildSearchIndexSteps } from "../../src/ml/knn/build";
import { parseSearchIndex, serializeSearchIndex } from "../../src/ml/knn/format";
import { type IdTable, idTableFromValues } from "../../src/ml/knn/ids";
import { searchIndex, searchRows } from "../../src/ml/knn/search";
import type { SearchIndex, SearchIndexKind } from "../../src/ml/knn/types";
import { Rng } from "../../src/ml/random";

function build(x: ArrayLike<number>, dims: number, kind: SearchIndexKind | "auto" = "exact", ids?: IdTable, seed = 0): SearchIndex {
  const rows = x.length / dims;
  const steps = buildSearchIndexSteps(Float32Array.from(x), rows, dims, ids ?? rowIds(rows), { kind, seed, targetRecall: 0.95 });
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

const rowIds = (n: number) => idTableFromValues(Array.from({ length: n }, (_, i) => i));

/** Gaussian blobs: `centers` centres with spread 5, unit noise. */
function blobs(n: number, d: number, centers: number, rng: Rng): Float32Array {
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
  const c = Array.from({ length: centers * d }, () => 5 * gauss());
  const x = new Float32Array(n * d);
  for (let i = 0; i < n; i++) {
    const b = rng.int(centers);
    for (let j = 0; j < d; j++) x[i * d + j] = c[b * d + j] + gauss();
  }
  return x;
}

/** Brute-force k nearest rows by (squared distance, row), the reference. */
function bruteForce(x: Float32Array, d: number, q: Float64Array, k: number): { rows: number[]; dist: number[] } {
  const n = x.length / d;
  const all = Array.from({ length: n }, (_, i) => {
    let s = 0;
    for (let j = 0; j < d; j++) s += (q[j] - x[i * d + j]) ** 2;
    return { i, s };
  });
  all.sort((a, b) => a.s - b.s || a.i - b.i);
  const top = all.slice(0, k);
  return { rows: top.map((t) => t.i), dist: top.map((t) => Math.sqrt(t.s)) };
}

describe("knn search", () => {
  it("finds the nearest points on a line, nearest first", () => {
    const index = build([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 1);
    const r = searchIndex(index, Float64Array.of(2.25), 1, 4);
    expect(r.ids).toEqual([[2, 3, 1, 4]]);
    expect(r.distances[0].map((v) => Math.round(v * 1e9) / 1e9)).toEqual([0.25, 0.75, 1.25, 1.75]);
  });

  it("breaks ties by training row order", () => {
    // rows 0..5 at +1, -1, +1, -1, +3, -1 (1-d); the query at 0 is at distance 1 from four of them
    const index = build([1, -1, 1, -1, 3, -1], 1);
    const r = searchIndex(index, Float64Array.of(0), 1, 3);
    expect(r.ids).toEqual([[0, 1, 2]]);
    expect(r.distances).toEqual([[1, 1, 1]]);
  });

  it("returns every row when k exceeds the row count", () => {
    const index = build([0, 0, 3, 4, 1, 1], 2);
    const r = searchIndex(index, Float64Array.of(0, 0, 3, 4), 2, 10);
    expect(r.ids).toEqual([
      [0, 2, 1],
      [1, 2, 0],
    ]);
    expect(r.distances[0]).toEqual([0, Math.SQRT2, 5]);
  });

  it("returns string ids, decoded from UTF-8", () => {
    const index = build([0, 10, 20], 1, "exact", idTableFromValues(["zéro", "dix", "vingt"]));
    expect(searchIndex(index, Float64Array.of(12), 1, 2).ids).toEqual([["dix", "vingt"]]);
  });

  it("keeps non-integer and large numeric ids as numbers", () => {
    const index = build([0, 10], 1, "exact", idTableFromValues([1.5, 2 ** 40]));
    expect(searchIndex(index, Float64Array.of(9), 1, 2).ids).toEqual([[2 ** 40, 1.5]]);
  });

  it("exact search equals brute force on clustered data with duplicate rows", () => {
    const rng = new Rng(3);
    const d = 5;
    const x = blobs(3000, d, 12, rng);
    for (let i = 0; i < 300; i++) x.copyWithin((2000 + i) * d, i * d, i * d + d); // duplicates: exact ties
    const index = build(x, d);
    expect(index.nlist).toBeGreaterThan(10);
    const queries = Float64Array.from(blobs(100, d, 12, new Rng(4)));
    queries.set(x.subarray(0, d), 0); // a query on a duplicated row
    const got = searchRows(index, queries, 100, 7);
    for (let q = 0; q < 100; q++) {
      const want = bruteForce(x, d, queries.subarray(q * d, q * d + d), 7);
      expect(Array.from(got.rows.subarray(q * 7, q * 7 + 7))).toEqual(want.rows);
      const dist = Array.from(got.dist2.subarray(q * 7, q * 7 + 7), Math.sqrt);
      dist.forEach((v, t) => expect(v).toBeCloseTo(want.dist[t], 12));
    }
  });

  it("ivf reaches the recall target on clustered data and stores it", () => {
    const rng = new Rng(5);
    const d = 8;
    const x = blobs(20000, d, 40, rng);
    const index = build(x, d, "ivf");
    expect(index.kind).toBe("ivf");
    expect(index.recall).toBeGreaterThanOrEqual(0.95);
    expect(index.nprobe).toBeLessThan(index.nlist);
    // fresh queries from the same distribution: recall@10 against exact search
    const exact = build(x, d, "exact");
    const queries = Float64Array.from(blobs(300, d, 40, new Rng(5)));
    const a = searchRows(exact, queries, 300, 10);
    const b = searchRows(index, queries, 300, 10);
    let hit = 0;
    for (let q = 0; q < 300; q++) {
      const truth = new Set(a.rows.subarray(q * 10, q * 10 + 10));
      for (const r of b.rows.subarray(q * 10, q * 10 + 10)) if (truth.has(r)) hit++;
    }
    expect(hit / 3000).toBeGreaterThan(0.93);
  });

  it("ivf over every cell is exact search on its decoded 8-bit vectors", () => {
    const d = 6;
    const x = blobs(4000, d, 10, new Rng(9));
    const index = build(x, d, "ivf");
    if (index.kind !== "ivf") throw new Error("expected ivf");
    const decoded = new Float32Array(4000 * d);
    for (let l = 0; l < index.nlist; l++) {
      for (let p = index.start[l]; p < index.start[l + 1]; p++) {
        for (let j = 0; j < d; j++) decoded[index.rowOf[p] * d + j] = index.lo[l * d + j] + index.step[l * d + j] * index.codes[p * d + j];
      }
    }
    const queries = Float64Array.from(blobs(50, d, 10, new Rng(10)));
    const got = searchRows(index, queries, 50, 5, index.nlist);
    for (let q = 0; q < 50; q++) {
      const want = bruteForce(decoded, d, queries.subarray(q * d, q * d + d), 5);
      expect(Array.from(got.rows.subarray(q * 5, q * 5 + 5))).toEqual(want.rows);
    }
  });

  it("round-trips exact and ivf indexes through bytes, from any byte offset", () => {
    const x = blobs(1000, 3, 5, new Rng(6));
    const queries = Float64Array.from(blobs(20, 3, 5, new Rng(7)));
    for (const [kind, ids] of [
      ["exact", rowIds(1000)],
      ["ivf", idTableFromValues(Array.from({ length: 1000 }, (_, i) => `row-${i}`))],
    ] as const) {
      const index = build(x, 3, kind, ids);
      const bytes = serializeSearchIndex(index);
      const shifted = new Uint8Array(bytes.length + 3);
      shifted.set(bytes, 3);
      const parsed = parseSearchIndex(shifted.subarray(3));
      expect(parsed.kind).toBe(kind);
      expect(parsed.nprobe).toBe(index.nprobe);
      expect(parsed.recall).toBe(index.recall);
      expect(searchIndex(parsed, queries, 20, 5)).toEqual(searchIndex(index, queries, 20, 5));
      expect(serializeSearchIndex(parsed)).toEqual(bytes);
    }
  });

  it("refuses damaged index files", () => {
    const bytes = serializeSearchIndex(build([0, 1, 2, 3], 1));
    expect(() => parseSearchIndex(bytes.subarray(0, bytes.length - 8))).toThrow(/damaged/);
    const wrong = bytes.slice();
    wrong[0] = 0;
    expect(() => parseSearchIndex(wrong)).toThrow(/not a search index/);
  });

  it("is deterministic: same vectors and seed, same bytes", () => {
    const x = blobs(1500, 4, 6, new Rng(8));
    const a = serializeSearchIndex(build(x, 4, "ivf", undefined, 11));
    const b = serializeSearchIndex(build(x, 4, "ivf", undefined, 11));
    expect(a).toEqual(b);
  });

  it("indexes a single row and identical rows", () => {
    expect(searchIndex(build([7, 7], 2), Float64Array.of(7, 8), 1, 3)).toEqual({ ids: [[0]], distances: [[1]] });
    const same = build(new Array(40).fill(2), 1, "ivf");
    expect(searchIndex(same, Float64Array.of(2), 1, 3).ids).toEqual([[0, 1, 2]]);
  });

  it("auto keeps the exact index where its bounds prune (clustered data)", () => {
    const index = build(blobs(50_000, 8, 32, new Rng(11)), 8, "auto");
    expect(index.kind).toBe("exact");
  });

  it("auto takes ivf at the target recall on structureless data, where exact search cannot prune", () => {
    const index = build(blobs(50_000, 16, 1, new Rng(12)), 16, "auto");
    expect(index.kind).toBe("ivf");
    expect(index.nprobe).toBeLessThan(index.nlist);
    expect(index.recall).toBeGreaterThanOrEqual(0.95);
  });

  it("auto stays exact on small tables, structured or not", () => {
    expect(build(blobs(2_000, 16, 1, new Rng(13)), 16, "auto").kind).toBe("exact");
    expect(build([7, 7], 2, "auto").kind).toBe("exact");
  });
});
