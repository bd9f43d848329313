import { describe, expect, it } from "vitest";
import { adjustedRandIndex } from "../../src/ml/kmeans/ari";
import { assignNearest, ClusterSums, columnSpread, dist2, inertiaOf, meanVariance } from "../../src/ml/kmeans/centers";
import { chooseKSteps, clusterSamples, fitSampleMatrix } from "../../src/ml/kmeans/choose-k";
import { elkanIterations } from "../../src/ml/kmeans/elkan";
import { hamerlyIterations } from "../../src/ml/kmeans/hamerly";
import { kmeans } from "../../src/ml/kmeans/kmeans";
import { lloydIterations } from "../../src/ml/kmeans/lloyd";
import { countDistinctRows } from "../../src/ml/kmeans/rows";
import { kmeansPlusPlus } from "../../src/ml/kmeans/seeding";
import { silhouetteScore } from "../../src/ml/kmeans/silhouette";
import { Rng } from "../../src/ml/random";

/** n rows of k Gaussian blobs in d dimensions (centers in ±box, unit-ish spread), with their labels. */
function blobs(n: number, d: number, k: number, spread: number, seed: number, box = 10): { X: Float64Array; y: Int32Array } {
  const rng = new Rng(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(rng.next() || 1e-12)) * Math.cos(2 * Math.PI * rng.next());
  const centers = Array.from({ length: k * d }, () => (rng.next() * 2 - 1) * box);
  const X = new Float64Array(n * d);
  const y = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const c = (y[i] = i % k);
    for (let t = 0; t < d; t++) X[i * d + t] = centers[c * d + t] + gauss() * spread;
  }
  return { X, y };
}

function drive<T>(g: Generator<unknown, T, void>): T {
  for (;;) {
    const r = g.next();
    if (r.done) return r.value;
  }
}

describe("k-means", () => {
  it("finds two obvious groups on a line", () => {
    const X = Float64Array.from([0, 0.5, 1, 10, 10.5, 11]);
    const r = kmeans(X, 6, 1, { k: 2, seed: 1 });
    expect(Array.from(r.labels.slice(0, 3)).every((l) => l === r.labels[0])).toBe(true);
    expect(Array.from(r.labels.slice(3)).every((l) => l === r.labels[3])).toBe(true);
    expect(r.labels[0]).not.toBe(r.labels[3]);
    expect([...r.centers].sort((a, b) => a - b)).toEqual([0.5, 10.5]);
    expect(r.inertia).toBeCloseTo(1, 12); // 4 × 0.25
    expect(r.converged).toBe(true);
  });

  it("is deterministic for a seed, and the seed matters", () => {
    const { X } = blobs(300, 3, 5, 4, 7);
    const a = kmeans(X, 300, 3, { k: 5, seed: 11 });
    const b = kmeans(X, 300, 3, { k: 5, seed: 11 });
    expect(Array.from(b.centers)).toEqual(Array.from(a.centers));
    expect(b.restartInertias).toEqual(a.restartInertias);
    const s = kmeansPlusPlus(X, 300, 3, 5, new Rng(1)).centers;
    expect(Array.from(kmeansPlusPlus(X, 300, 3, 5, new Rng(1)).centers)).toEqual(Array.from(s));
    expect(Array.from(kmeansPlusPlus(X, 300, 3, 5, new Rng(2)).centers)).not.toEqual(Array.from(s));
  });

  it("k-means++ picks k distinct rows and knows each row's nearest seed", () => {
    // 3 distinct rows, many duplicates: the seeds must be the 3 of them
    const X = Float64Array.from({ length: 60 }, (_, i) => [0, 5, 9][i % 3]);
    const s = kmeansPlusPlus(X, 60, 1, 3, new Rng(3));
    expect([...s.centers].sort((a, b) => a - b)).toEqual([0, 5, 9]);
    const ref = assignNearest(X, 60, 1, s.centers, 3);
    expect(Array.from(s.labels)).toEqual(Array.from(ref.labels));
    expect(Array.from(s.dist2)).toEqual(Array.from(ref.dist2));
  });

  it("k-means++ bounds every row's distance to the seeds it is not nearest to", () => {
    const { X } = blobs(3000, 3, 6, 2, 9);
    const s = kmeansPlusPlus(X, 3000, 3, 6, new Rng(4));
    for (let i = 0; i < 3000; i++) {
      let other = Infinity;
      for (let j = 0; j < 6; j++) if (j !== s.labels[i]) other = Math.min(other, dist2(X, i, s.centers, j, 3));
      expect(s.second[i]).toBeLessThanOrEqual(other * (1 + 1e-12));
    }
  });

  it("Hamerly and Elkan give exactly plain Lloyd's labels, centers and iterations", () => {
    // overlapping blobs: many iterations and many rows near boundaries
    const { X } = blobs(2000, 4, 6, 6, 3);
    const tol = 1e-4 * meanVariance(X, 2000, 4);
    for (const seed of [1, 2, 3]) {
      const s = kmeansPlusPlus(X, 2000, 4, 6, new Rng(seed));
      const lloyd = lloydIterations(X, 2000, 4, s.centers, 6, 300, tol);
      const hamerly = hamerlyIterations(X, 2000, 4, s.centers, 6, 300, tol, s);
      const cold = hamerlyIterations(X, 2000, 4, s.centers, 6, 300, tol);
      const elkan = elkanIterations(X, 2000, 4, s.centers, 6, 300, tol, s);
      const elkanCold = elkanIterations(X, 2000, 4, s.centers, 6, 300, tol);
      expect(lloyd.iterations).toBeGreaterThan(3);
      for (const h of [hamerly, cold, elkan, elkanCold]) {
        expect(Array.from(h.labels)).toEqual(Array.from(lloyd.labels));
        expect(Array.from(h.centers)).toEqual(Array.from(lloyd.centers));
        expect(h.iterations).toBe(lloyd.iterations);
        expect(h.inertia).toBe(lloyd.inertia);
      }
    }
  });

  it("gives a row equidistant from two centers to the first one, in every variant", () => {
    // row 0 sits halfway between the centers -1 and 1; the start (as from a seeding) says center 1
    const X = Float64Array.from([-1.5, -0.5, 0, 0.5, 1.5]);
    const init = Float64Array.from([-1, 1]);
    const start = { labels: Int32Array.from([0, 0, 1, 1, 1]), dist2: Float64Array.from([0.25, 0.25, 1, 0.25, 0.25]) };
    const lloyd = lloydIterations(X, 5, 1, init, 2, 1, 0);
    expect(Array.from(lloyd.labels)).toEqual([0, 0, 0, 1, 1]);
    for (const r of [hamerlyIterations(X, 5, 1, init, 2, 1, 0, start), elkanIterations(X, 5, 1, init, 2, 1, 0, start)]) {
      expect(Array.from(r.centers)).toEqual(Array.from(lloyd.centers));
      expect(Array.from(r.labels)).toEqual(Array.from(lloyd.labels));
    }
  });

  it("moves an emptied cluster's center to the farthest row", () => {
    // centers 0 and 100 on rows {0, 1, 2, 50}: the center at 100 gets no row, takes row 50
    const X = Float64Array.from([0, 1, 2, 50]);
    const r = lloydIterations(X, 4, 1, Float64Array.from([1, 100]), 2, 10, 0);
    expect([...r.centers].sort((a, b) => a - b)).toEqual([1, 50]);
    for (const h of [
      hamerlyIterations(X, 4, 1, Float64Array.from([1, 100]), 2, 10, 0),
      elkanIterations(X, 4, 1, Float64Array.from([1, 100]), 2, 10, 0),
    ]) {
      expect(Array.from(h.centers)).toEqual(Array.from(r.centers));
      expect(Array.from(h.labels)).toEqual(Array.from(r.labels));
    }
  });

  it("keeps the best of n_init restarts", () => {
    const { X } = blobs(400, 2, 8, 3, 5);
    const r = kmeans(X, 400, 2, { k: 8, nInit: 4, seed: 2 });
    expect(r.restartInertias).toHaveLength(4);
    expect(r.inertia).toBe(Math.min(...r.restartInertias));
  });

  it("the abandoning rule's objective from the cluster sums is the inertia at the means", () => {
    const { X } = blobs(500, 3, 4, 2, 9);
    const labels = Int32Array.from({ length: 500 }, (_, i) => (i * 7) % 4);
    const sums = new ClusterSums(X, 500, 3, 4, labels);
    const means = new Float64Array(12);
    sums.means(labels, new Float64Array(12), means);
    const objective = columnSpread(X, 500, 3).squaresAboutFirstRow - sums.squaresOfMeansAbout(X.slice(0, 3));
    expect(objective).toBeCloseTo(inertiaOf(X, 500, 3, means, labels), 6);
  });

  it("abandons a restart clearly worse than the best so far, and keeps the same best", () => {
    const { X } = blobs(2000, 4, 6, 2, 3);
    const on = kmeans(X, 2000, 4, { k: 6, nInit: 4, seed: 0 });
    const off = kmeans(X, 2000, 4, { k: 6, nInit: 4, seed: 0, abandonWorse: false });
    // restart 2 ends 80% above the best: abandoned on its way, at a higher objective than its end
    expect(on.restartInertias[1]).toBeGreaterThan(off.restartInertias[1]);
    expect(on.restartInertias[1]).toBeGreaterThan(1.01 * on.inertia);
    expect(on.inertia).toBe(off.inertia);
    expect(Array.from(on.centers)).toEqual(Array.from(off.centers));
    expect(Array.from(on.labels)).toEqual(Array.from(off.labels));
  });

  it("abandons the same restarts at the same iteration in every variant", () => {
    const { X } = blobs(2000, 4, 6, 2, 3);
    const fits = (["hamerly", "elkan", "lloyd"] as const).map((algorithm) => kmeans(X, 2000, 4, { k: 6, nInit: 4, seed: 17, algorithm }));
    // (three of its four restarts are abandoned)
    expect(fits[0].restartInertias).not.toEqual(kmeans(X, 2000, 4, { k: 6, nInit: 4, seed: 17, abandonWorse: false }).restartInertias);
    for (const f of fits.slice(1)) {
      expect(f.restartInertias).toEqual(fits[0].restartInertias);
      expect(Array.from(f.centers)).toEqual(Array.from(fits[0].centers));
    }
  });

  it("counts distinct rows up to a limit", () => {
    const X = Float64Array.from([1, 2, 1, 2, 1, 2, 3, 4]);
    expect(countDistinctRows(X, 4, 2, 10)).toBe(2);
    expect(countDistinctRows(X, 4, 2, 1)).toBe(1);
  });
});

describe("silhouette and ARI", () => {
  it("silhouette equals the hand-computed value", () => {
    // rows 0, 1 | 4, 6: s = 0.8, 0.75, 3/7, 7/11
    const s = silhouetteScore(Float64Array.from([0, 1, 4, 6]), 4, 1, Int32Array.from([0, 0, 1, 1]), 2);
    expect(s).toBeCloseTo((0.8 + 0.75 + 3 / 7 + 7 / 11) / 4, 12);
  });

  it("silhouette counts a single-row cluster as 0, and is null with one cluster", () => {
    const X = Float64Array.from([0, 0, 0, 1, 5, 5, 9, 9, 9, 8]);
    expect(silhouetteScore(X, 5, 2, Int32Array.from([0, 0, 1, 2, 2]), 3)).toBeCloseTo(0.6651256373154896, 12); // scikit-learn's value
    expect(silhouetteScore(X, 5, 2, Int32Array.from([1, 1, 1, 1, 1]), 3)).toBeNull();
  });

  it("ARI is 1 for the same partition under other names and matches a known value", () => {
    expect(adjustedRandIndex([0, 0, 1, 1, 2], [5, 5, 3, 3, 9])).toBe(1);
    expect(adjustedRandIndex([0, 0, 1, 1, 2, 2], [0, 0, 1, 2, 2, 2])).toBeCloseTo(4 / 9, 12); // scikit-learn's value
  });
});

describe("choosing k", () => {
  for (const trueK of [4, 6]) {
    it(`picks k = ${trueK} on well-separated blobs`, () => {
      const { X, y } = blobs(1200, 5, trueK, 1, 10 + trueK);
      const samples = clusterSamples(1200, 0);
      const choice = drive(chooseKSteps(X, 1200, 5, samples, fitSampleMatrix(X, 1200, 5, samples), { kMax: 10, nInit: 3, maxIter: 300, seed: 0 }));
      expect(choice.k).toBe(trueK);
      expect(choice.scores.map((s) => s.k)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(choice.fit).not.toBeNull();
      expect(adjustedRandIndex(choice.fit!.labels, y)).toBe(1);
    });
  }

  it("samples at most 20k rows for the fits and 2k for the silhouette", () => {
    const s = clusterSamples(50_000, 1);
    expect(s.fit.length).toBe(20_000);
    expect(s.silhouette.length).toBe(2_000);
    const fit = new Set(s.fit);
    expect(Array.from(s.silhouette).every((r) => fit.has(r))).toBe(true);
    expect(Array.from(clusterSamples(50_000, 1).silhouette)).toEqual(Array.from(s.silhouette));
  });
});
