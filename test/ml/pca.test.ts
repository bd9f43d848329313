import { describe, expect, it } from "vitest";
import { MlInputError } from "../../src/ml/errors";
import { matrixSource } from "../../src/ml/factors/passes";
import { autoComponents, fitPcaSteps, type PcaFit, type PcaOptions } from "../../src/ml/factors/pca";
import { Rng } from "../../src/ml/random";
import { pcaScores } from "./helpers/engine-scores";

function fitPca(x: Float64Array, rows: number, D: number, opts: PcaOptions = {}, chunkRows = 7): PcaFit {
  const steps = fitPcaSteps(matrixSource(x, rows, D, chunkRows), opts);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Rows z·A + noise: `factors` latent variables of decreasing scale spread over D columns. */
function lowRank(rows: number, D: number, factors: number, seed: number, noise = 0.1): Float64Array {
  const rng = new Rng(seed);
  const a = Float64Array.from({ length: factors * D }, () => rng.next() - 0.5);
  const x = new Float64Array(rows * D);
  for (let i = 0; i < rows; i++) {
    const z = Array.from({ length: factors }, (_, j) => (rng.next() - 0.5) * 4 * 0.6 ** j);
    for (let d = 0; d < D; d++) {
      let v = noise * (rng.next() - 0.5) + (d % 3 === 0 ? 1 : 0); // an offset: the mean must be removed
      for (let j = 0; j < factors; j++) v += z[j] * a[j * D + d];
      x[i * D + d] = v;
    }
  }
  return x;
}

/** Sample covariance of the columns of [rows x k]. */
function covariance(s: Float64Array, rows: number, k: number): Float64Array {
  const mean = new Float64Array(k);
  for (let i = 0; i < rows; i++) for (let j = 0; j < k; j++) mean[j] += s[i * k + j] / rows;
  const c = new Float64Array(k * k);
  for (let i = 0; i < rows; i++)
    for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) c[a * k + b] += ((s[i * k + a] - mean[a]) * (s[i * k + b] - mean[b])) / (rows - 1);
  return c;
}

describe("PCA", () => {
  // x = t·u + s·w with u = (1, 2)/√5, w = (−2, 1)/√5 and Σ t·s = 0: the components are u and w
  const t = [-2, -1, 0, 1, 2];
  const s = [0.1, -0.2, 0, 0.2, -0.1];
  const u = [1 / Math.sqrt(5), 2 / Math.sqrt(5)];
  const w = [-2 / Math.sqrt(5), 1 / Math.sqrt(5)];
  const line = Float64Array.from(t.flatMap((ti, i) => [ti * u[0] + s[i] * w[0] + 3, ti * u[1] + s[i] * w[1] - 1]));

  it("finds the direction of 2-D data spread along a known line", () => {
    const f = fitPca(line, 5, 2, { nComponents: 2 });
    // var(t) = 10/4, var(s) = 0.1/4
    expect(f.explainedVariance[0]).toBeCloseTo(2.5, 14);
    expect(f.explainedVariance[1]).toBeCloseTo(0.025, 14);
    expect(f.explainedVariance[0] / f.totalVariance).toBeCloseTo(2.5 / 2.525, 14);
    // signs: the largest |entry| is positive, so u as is and w flipped
    expect(Array.from(f.components)).toEqual([u[0], u[1], -w[0], -w[1]].map((v) => expect.closeTo(v, 14)));
    expect(Array.from(f.mean)).toEqual([expect.closeTo(3, 14), expect.closeTo(-1, 14)]);
    // scores: t and −s, centred by the training mean
    const scores = pcaScores(f, line, 5);
    t.forEach((ti, i) => {
      expect(scores[i * 2]).toBeCloseTo(ti, 13);
      expect(scores[i * 2 + 1]).toBeCloseTo(-s[i], 13);
    });
    // loadings = component · √variance
    expect(f.loadings[1]).toBeCloseTo(u[1] * Math.sqrt(2.5), 14);
  });

  it("chooses the fewest components reaching 90% of the variance, at most 10", () => {
    expect(autoComponents([5, 3, 1, 1], 10, 4)).toBe(3); // 0.5, 0.8, 0.9: reached exactly
    expect(autoComponents([5, 3, 0.9, 1.1], 10, 4)).toBe(4);
    expect(autoComponents([9.5, 0.5], 10, 2)).toBe(1);
    expect(autoComponents(new Array(20).fill(1), 20, 20)).toBe(10); // would need 18
    expect(autoComponents([1, 1, 1], 3, 2)).toBe(2); // capped by the limit
    const f = fitPca(line, 5, 2);
    expect(f.rule).toBe("auto");
    expect(f.k).toBe(1); // 99% on the first
  });

  it("rejects n_components above the column count, naming both numbers", () => {
    expect(() => fitPca(line, 5, 2, { nComponents: 3 })).toThrow(MlInputError);
    expect(() => fitPca(line, 5, 2, { nComponents: 3 })).toThrow(/n_components is 3 .* only 2 standardized feature columns/);
    expect(() => fitPca(line, 5, 2, { nComponents: 0 })).toThrow(MlInputError);
    expect(() => fitPca(new Float64Array(4), 2, 2)).toThrow(/constant/);
  });

  it("centres the covariance on the mean whatever the chunking", () => {
    const x = lowRank(50, 6, 2, 3);
    const a = fitPca(x, 50, 6, { nComponents: 3 }, 50);
    const b = fitPca(x, 50, 6, { nComponents: 3 }, 3);
    for (let i = 0; i < a.components.length; i++) expect(b.components[i]).toBeCloseTo(a.components[i], 12);
    // scores are uncorrelated with variances = eigenvalues
    const c = covariance(pcaScores(a, x, 50), 50, 3);
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) expect(c[i * 3 + j]).toBeCloseTo(i === j ? a.explainedVariance[i] : 0, 10);
  });

  it("gives the exact solver's answer with the randomized solver (seeded, deterministic)", () => {
    const x = lowRank(300, 30, 4, 11);
    const exact = fitPca(x, 300, 30, { nComponents: 4 });
    const rand = fitPca(x, 300, 30, { nComponents: 4, solver: "randomized", seed: 3 });
    expect(rand.solver).toBe("randomized");
    expect(rand.totalVariance).toBeCloseTo(exact.totalVariance, 12);
    for (let j = 0; j < 4; j++) expect(rand.explainedVariance[j]).toBeCloseTo(exact.explainedVariance[j], 10);
    // same sign convention on both solvers
    for (let i = 0; i < exact.components.length; i++) expect(rand.components[i]).toBeCloseTo(exact.components[i], 7);
    const again = fitPca(x, 300, 30, { nComponents: 4, solver: "randomized", seed: 3 });
    expect(again.components).toEqual(rand.components);
  });

  it("varimax keeps the total variance and communalities, with uncorrelated scores of the stated variances", () => {
    const rows = 200;
    const D = 8;
    const x = lowRank(rows, D, 3, 21, 0.5);
    const plain = fitPca(x, rows, D, { nComponents: 3 });
    const rot = fitPca(x, rows, D, { nComponents: 3, rotation: "varimax" });
    expect(rot.rotation).toBe("varimax");
    const sum = (v: Float64Array) => v.reduce((a, b) => a + b, 0);
    expect(sum(rot.explainedVariance)).toBeCloseTo(sum(plain.explainedVariance), 12);
    for (let j = 1; j < 3; j++) expect(rot.explainedVariance[j]).toBeLessThanOrEqual(rot.explainedVariance[j - 1]);
    for (let d = 0; d < D; d++) {
      let h0 = 0;
      let h1 = 0;
      for (let j = 0; j < 3; j++) {
        h0 += plain.loadings[j * D + d] ** 2;
        h1 += rot.loadings[j * D + d] ** 2;
      }
      expect(h1).toBeCloseTo(h0, 12);
    }
    const scores = pcaScores(rot, x, rows);
    const c = covariance(scores, rows, 3);
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) expect(c[i * 3 + j]).toBeCloseTo(i === j ? rot.explainedVariance[i] : 0, 10);
    // loading = covariance of the column with the factor scaled to unit variance
    for (let j = 0; j < 3; j++) {
      const sd = Math.sqrt(rot.explainedVariance[j]);
      let cov = 0;
      for (let i = 0; i < rows; i++) cov += ((x[i * D] - rot.mean[0]) * scores[i * 3 + j]) / (rows - 1);
      expect(rot.loadings[j * D]).toBeCloseTo(cov / sd, 10);
    }
  });

  it("is deterministic: the same data gives bit-identical fits", () => {
    const x = lowRank(120, 9, 3, 5);
    const a = fitPca(x, 120, 9, { rotation: "varimax" });
    const b = fitPca(x, 120, 9, { rotation: "varimax" });
    expect(b.components).toEqual(a.components);
    expect(b.loadings).toEqual(a.loadings);
    expect(b.explainedVariance).toEqual(a.explainedVariance);
  });

  it("reports one step per chunk and one for the decomposition", () => {
    const x = lowRank(30, 4, 2, 1);
    const steps = fitPcaSteps(matrixSource(x, 30, 4, 7), {});
    const seen: number[] = [];
    let r = steps.next();
    for (; !r.done; r = steps.next()) {
      seen.push(r.value.step);
      expect(r.value.totalSteps).toBe(6);
    }
    expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
