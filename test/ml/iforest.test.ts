import { describe, expect, it } from "vitest";
import type { IsolationForest } from "../../src/ml/iforest/forest";
import { averagePathLength, harmonic } from "../../src/ml/iforest/path-length";
import { pathLengthSums, scoreIsolationForest } from "../../src/ml/iforest/score";
import { Rng } from "../../src/ml/random";
import { trainIsolationForest } from "./helpers/train-isolation-forest";

const params = { numTrees: 50, maxSamples: 256, seed: 0 };

/** Path length of each row averaged over the trees. */
function meanPath(forest: IsolationForest, rows: number[][]): number[] {
  const data = Float32Array.from(rows.flat());
  const out = new Float64Array(rows.length);
  pathLengthSums(forest, data, 0, rows.length, out);
  return Array.from(out, (s) => s / forest.numTrees);
}

/** A Gaussian-ish cloud of n rows x F features (sum of uniforms). */
function cloud(n: number, F: number, seed: number): number[][] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => Array.from({ length: F }, () => rng.next() + rng.next() + rng.next() - 1.5));
}

describe("c(n), the average path length", () => {
  it("has the hand-computed values c(0..4) = 0, 0, 1, 5/3, 13/6", () => {
    expect([0, 1, 2, 3, 4].map(averagePathLength)).toEqual([0, 0, 1, 5 / 3, 13 / 6].map((x) => expect.closeTo(x, 14)));
  });

  it("joins the exact harmonic sum and its asymptotic expansion seamlessly", () => {
    let exact = 0;
    for (let k = 1; k <= 200; k++) exact += 1 / k;
    expect(harmonic(200)).toBeCloseTo(exact, 13);
    expect(harmonic(65) - harmonic(64)).toBeCloseTo(1 / 65, 14);
  });
});

describe("isolation forest", () => {
  it("scores an obvious outlier highest, far above the cloud", () => {
    const rows = cloud(300, 3, 1);
    rows.push([6, -6, 6]);
    const forest = trainIsolationForest(Float32Array.from(rows.flat()), rows.length, 3, params);
    const s = scoreIsolationForest(forest, Float32Array.from(rows.flat()), rows.length);
    const top = s.indexOf(Math.max(...s));
    expect(top).toBe(300);
    expect(s[300]).toBeGreaterThan(0.7);
    const sorted = Float64Array.from(s).sort();
    expect(sorted[150]).toBeLessThan(0.5);
  });

  it("scores every row in (0, 1], missing and extreme values included", () => {
    const rows = cloud(200, 2, 2);
    const forest = trainIsolationForest(Float32Array.from(rows.flat()), rows.length, 2, params);
    const probe = [
      [NaN, NaN],
      [NaN, 0],
      [3.4e38, -3.4e38],
      [0, 0],
    ];
    for (const s of scoreIsolationForest(forest, Float32Array.from(probe.flat()), probe.length)) {
      expect(s).toBeGreaterThan(0);
      expect(s).toBeLessThanOrEqual(1);
    }
  });

  it("matches 2^(-E[h]/c(ψ)) by hand on a forest whose trees are all alike", () => {
    // ψ = 4 = all rows: every root splits between 0 and 10; the three zeros are a leaf of size 3.
    const forest = trainIsolationForest(Float32Array.from([0, 0, 0, 10]), 4, 1, { numTrees: 10, maxSamples: 256, seed: 3 });
    expect(meanPath(forest, [[10], [0]])).toEqual([expect.closeTo(1, 12), expect.closeTo(1 + 5 / 3, 12)]);
    const s = scoreIsolationForest(forest, Float32Array.from([10, 0]), 2);
    expect(s[0]).toBeCloseTo(2 ** (-1 / (13 / 6)), 12);
    expect(s[1]).toBeCloseTo(2 ** (-(8 / 3) / (13 / 6)), 12);
  });

  it("sends a missing value to the side that got more of the sub-sample", () => {
    const forest = trainIsolationForest(Float32Array.from([0, 0, 0, 10]), 4, 1, { numTrees: 10, maxSamples: 256, seed: 3 });
    expect(meanPath(forest, [[NaN]])).toEqual(meanPath(forest, [[0]]));
    // training rows with NaN follow the same rule: the NaN row joins the two zeros
    const withNaN = trainIsolationForest(Float32Array.from([NaN, 0, 0, 10]), 4, 1, { numTrees: 5, maxSamples: 256, seed: 3 });
    for (const root of withNaN.roots) {
      expect(withNaN.nanLeft[root]).toBe(1);
      expect(withNaN.size[withNaN.left[root]]).toBe(3);
    }
    expect(meanPath(withNaN, [[NaN]])[0]).toBeCloseTo(1 + 5 / 3, 12);
  });

  it("scores rows the same whether or not their block holds a missing value", () => {
    const rows = cloud(300, 4, 4);
    const data = Float32Array.from(rows.flat());
    const forest = trainIsolationForest(data, 300, 4, params);
    const clean = scoreIsolationForest(forest, data, 300);
    const dirty = data.slice();
    dirty[7 * 4 + 2] = NaN; // row 7 only
    const mixed = scoreIsolationForest(forest, dirty, 300);
    for (let i = 0; i < 300; i++) if (i !== 7) expect(mixed[i]).toBe(clean[i]);
  });

  it("grows trees within depth ceil(log2 ψ), leaves covering the sub-sample, float32 thresholds inside the range", () => {
    const rows = cloud(1000, 3, 5);
    const forest = trainIsolationForest(Float32Array.from(rows.flat()), 1000, 3, { numTrees: 20, maxSamples: 100, seed: 1 });
    expect(forest.sampleSize).toBe(100);
    const walk = (nd: number, depth: number): number => {
      expect(depth).toBeLessThanOrEqual(7);
      if (forest.feature[nd] < 0) return forest.size[nd];
      expect(Math.fround(forest.threshold[nd])).toBe(forest.threshold[nd]);
      const l = forest.left[nd];
      expect(forest.size[l] + forest.size[l + 1]).toBe(forest.size[nd]);
      expect(forest.size[l]).toBeGreaterThan(0);
      expect(forest.size[l + 1]).toBeGreaterThan(0);
      return walk(l, depth + 1) + walk(l + 1, depth + 1);
    };
    for (const root of forest.roots) expect(walk(root, 0)).toBe(100);
  });

  it("is deterministic for a seed and differs across seeds", () => {
    const data = Float32Array.from(cloud(500, 3, 6).flat());
    const a = trainIsolationForest(data, 500, 3, params);
    const b = trainIsolationForest(data, 500, 3, params);
    const c = trainIsolationForest(data, 500, 3, { ...params, seed: 1 });
    expect(b).toEqual(a);
    expect(scoreIsolationForest(b, data, 500)).toEqual(scoreIsolationForest(a, data, 500));
    expect(c.threshold).not.toEqual(a.threshold);
  });

  it("makes a leaf of a sub-sample with no varying feature", () => {
    const forest = trainIsolationForest(Float32Array.from([1, 2, 1, 2, 1, 2]), 3, 2, { numTrees: 3, maxSamples: 256, seed: 0 });
    for (const root of forest.roots) {
      expect(forest.feature[root]).toBe(-1);
      expect(forest.pathLength[root]).toBeCloseTo(5 / 3, 12);
    }
  });
});
