import { describe, expect, it } from "vitest";
import { symmetricEigen } from "../../src/ml/factors/eigen";
import { matrixSource } from "../../src/ml/factors/passes";
import { randomizedEigen } from "../../src/ml/factors/randomized";
import { varimaxRotation } from "../../src/ml/factors/varimax";
import { Rng } from "../../src/ml/random";
import { varimaxCriterion } from "./helpers/varimax-criterion";

function randomSymmetric(n: number, seed: number): Float64Array {
  const rng = new Rng(seed);
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) a[i * n + j] = a[j * n + i] = rng.next() - 0.5;
  return a;
}

/** max |A v − λ v| and max |VVᵀ − I|. */
function eigenErrors(a: Float64Array, n: number, values: Float64Array, vectors: Float64Array): { residual: number; orthogonality: number } {
  let residual = 0;
  let orthogonality = 0;
  for (let i = 0; i < n; i++) {
    for (let r = 0; r < n; r++) {
      let s = 0;
      for (let c = 0; c < n; c++) s += a[r * n + c] * vectors[i * n + c];
      residual = Math.max(residual, Math.abs(s - values[i] * vectors[i * n + r]));
    }
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let c = 0; c < n; c++) s += vectors[i * n + c] * vectors[j * n + c];
      orthogonality = Math.max(orthogonality, Math.abs(s - (i === j ? 1 : 0)));
    }
  }
  return { residual, orthogonality };
}

/** Max |a − ±b| with the sign of b chosen by the dot product. */
function diffUpToSign(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  const s = dot < 0 ? -1 : 1;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - s * b[i]));
  return m;
}

describe("symmetric eigen-decomposition", () => {
  it("solves the second-difference matrix exactly (values 2+√2, 2, 2−√2)", () => {
    const { values, vectors } = symmetricEigen(Float64Array.from([2, -1, 0, -1, 2, -1, 0, -1, 2]), 3);
    const r = Math.SQRT2;
    expect(Array.from(values)).toEqual([2 + r, 2, 2 - r].map((v) => expect.closeTo(v, 14)));
    const expected = [
      [0.5, -r / 2, 0.5],
      [r / 2, 0, -r / 2],
      [0.5, r / 2, 0.5],
    ];
    expected.forEach((v, i) => expect(diffUpToSign(vectors.subarray(i * 3, i * 3 + 3), v)).toBeLessThan(1e-14));
  });

  it("has tiny residuals and orthonormal vectors on a random 60 x 60 matrix", () => {
    const a = randomSymmetric(60, 3);
    const { values, vectors } = symmetricEigen(a, 60);
    const err = eigenErrors(a, 60, values, vectors);
    expect(err.residual).toBeLessThan(1e-13);
    expect(err.orthogonality).toBeLessThan(1e-13);
    for (let i = 1; i < 60; i++) expect(values[i]).toBeLessThanOrEqual(values[i - 1]);
  });

  it("handles repeated and zero eigenvalues (Q·diag(5, 5, 1, 0, 0)·Qᵀ)", () => {
    const n = 5;
    const q = symmetricEigen(randomSymmetric(n, 9), n).vectors; // some orthonormal basis
    const lambda = [5, 5, 1, 0, 0];
    const a = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) a[r * n + c] += lambda[i] * q[i * n + r] * q[i * n + c];
    const { values, vectors } = symmetricEigen(a, n);
    lambda.forEach((v, i) => expect(values[i]).toBeCloseTo(v, 13));
    const err = eigenErrors(a, n, values, vectors);
    expect(err.residual).toBeLessThan(1e-13);
    expect(err.orthogonality).toBeLessThan(1e-13);
  });

  it("returns the identity's and the zero matrix's eigenvalues as they are", () => {
    expect(Array.from(symmetricEigen(Float64Array.from([1, 0, 0, 1]), 2).values)).toEqual([1, 1]);
    expect(Array.from(symmetricEigen(new Float64Array(9), 3).values)).toEqual([0, 0, 0]);
  });
});

describe("randomized eigen (subspace iteration)", () => {
  it("finds the leading eigenpairs of a low-rank-plus-noise covariance like the exact solver", () => {
    const rows = 400;
    const D = 40;
    const rng = new Rng(5);
    const x = new Float64Array(rows * D);
    for (let i = 0; i < rows; i++) {
      const z = [4 * (rng.next() - 0.5), 2 * (rng.next() - 0.5), rng.next() - 0.5];
      for (let d = 0; d < D; d++) x[i * D + d] = z[0] * Math.sin(d + 1) + z[1] * Math.cos(3 * d) + z[2] * ((d % 5) - 2) + 0.05 * (rng.next() - 0.5);
    }
    const src = matrixSource(x, rows, D, 64);
    const mean = new Float64Array(D);
    for (let i = 0; i < rows; i++) for (let d = 0; d < D; d++) mean[d] += x[i * D + d] / rows;
    const cov = new Float64Array(D * D);
    for (let i = 0; i < rows; i++)
      for (let a = 0; a < D; a++) for (let b = 0; b < D; b++) cov[a * D + b] += ((x[i * D + a] - mean[a]) * (x[i * D + b] - mean[b])) / (rows - 1);
    const exact = symmetricEigen(cov, D);
    const steps = randomizedEigen(src, mean, 8, { seed: 1 });
    let r = steps.next();
    let yields = 0;
    for (; !r.done; r = steps.next()) yields++;
    expect(yields).toBe(9 * src.numChunks); // 8 power iterations + Rayleigh-Ritz, one yield per chunk
    const { values, vectors } = r.value;
    for (let j = 0; j < 3; j++) {
      expect(Math.abs(values[j] - exact.values[j]) / exact.values[0]).toBeLessThan(1e-12);
      expect(diffUpToSign(vectors.subarray(j * D, (j + 1) * D), exact.vectors.subarray(j * D, (j + 1) * D))).toBeLessThan(1e-8);
    }
  });
});

describe("varimax", () => {
  // unrotated loadings of 6 variables on 3 factors
  const L = Float64Array.from([0.7, 0.4, 0.1, 0.6, 0.5, -0.2, 0.5, -0.6, 0.3, 0.4, -0.7, 0.2, 0.6, 0.1, -0.5, 0.5, 0.2, 0.6]);
  const p = 6;
  const k = 3;
  const rotate = (a: Float64Array, r: Float64Array) => {
    const out = new Float64Array(p * k);
    for (let i = 0; i < p; i++) for (let j = 0; j < k; j++) for (let m = 0; m < k; m++) out[i * k + j] += a[i * k + m] * r[m * k + j];
    return out;
  };
  const communalities = (a: Float64Array) => Array.from({ length: p }, (_, i) => a[i * k] ** 2 + a[i * k + 1] ** 2 + a[i * k + 2] ** 2);

  it("keeps every communality, is orthogonal and raises the criterion", () => {
    const r = varimaxRotation(L, p, k);
    const rotated = rotate(L, r);
    communalities(rotated).forEach((h, i) => expect(h).toBeCloseTo(communalities(L)[i], 14));
    for (let a = 0; a < k; a++)
      for (let b = 0; b < k; b++)
        expect(r[a * k] * r[b * k] + r[a * k + 1] * r[b * k + 1] + r[a * k + 2] * r[b * k + 2]).toBeCloseTo(a === b ? 1 : 0, 14);
    expect(varimaxCriterion(rotated, p, k)).toBeGreaterThan(varimaxCriterion(L, p, k));
  });

  it("matches the SVD-based varimax of numpy (Kaiser-normalized and raw) up to column sign", () => {
    // reference: the classic iteration R = U Vᵀ of svd(Aᵀ(B³ − B·diag(ΣB²)/p)), 5000 iterations (converged to ~1e-12)
    const expected = {
      kaiser: [
        [0.562282750091, -0.020743213199, 0.586010092111],
        [0.701507924121, 0.174569518993, 0.356948337206],
        [0.019978270373, -0.814343114012, 0.190908777627],
        [-0.018878520377, -0.830133170442, 0.022858713864],
        [0.77888367613, -0.103451166805, -0.051362195685],
        [0.051029487026, -0.196508217509, 0.780243879761],
      ],
      raw: [
        [0.570265311075, -0.027914534089, 0.577943123302],
        [0.70717077986, 0.168624996295, 0.348532780002],
        [0.018977880714, -0.815932497005, 0.184103232929],
        [-0.022278488417, -0.830199834088, 0.016489524961],
        [0.777624258273, -0.106436421674, -0.063022226922],
        [0.060975418566, -0.203001525223, 0.777863984954],
      ],
    };
    for (const normalize of [true, false]) {
      const rotated = rotate(L, varimaxRotation(L, p, k, { normalize }));
      const ref = expected[normalize ? "kaiser" : "raw"];
      for (let j = 0; j < k; j++) {
        // match each reference column to ours by the largest |correlation| (the order may differ)
        const col = (a: ArrayLike<number>[] | Float64Array, c: number) =>
          Array.from({ length: p }, (_, i) => (a instanceof Float64Array ? a[i * k + c] : a[i][c]));
        const diffs = [0, 1, 2].map((c) => diffUpToSign(col(rotated, c), col(ref, j)));
        expect(Math.min(...diffs)).toBeLessThan(1e-9);
      }
    }
  });

  it("recovers a simple structure that was rotated by 30°", () => {
    // each variable loads on one factor only; rotate by 30° in the plane of the two factors
    const simple = Float64Array.from([0.9, 0, 0.8, 0, 0.7, 0, 0, 0.9, 0, 0.6, 0, 0.5]);
    const t = Math.PI / 6;
    const r0 = Float64Array.from([Math.cos(t), Math.sin(t), -Math.sin(t), Math.cos(t)]);
    const mixed = new Float64Array(12);
    for (let i = 0; i < 6; i++) for (let j = 0; j < 2; j++) mixed[i * 2 + j] = simple[i * 2] * r0[j] + simple[i * 2 + 1] * r0[2 + j];
    const r = varimaxRotation(mixed, 6, 2);
    const back = new Float64Array(12);
    for (let i = 0; i < 6; i++) for (let j = 0; j < 2; j++) back[i * 2 + j] = mixed[i * 2] * r[j] + mixed[i * 2 + 1] * r[2 + j];
    for (let i = 0; i < 12; i++) expect(Math.abs(back[i])).toBeCloseTo(simple[i], 12);
  });
});
