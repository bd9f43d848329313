import { describe, expect, it } from "vitest";
import { quadratic, simplexLeastSquares } from "../../src/ml/causal/simplex-least-squares";
import { Rng } from "../../src/ml/random";

/** G = X'X / n and b = X'y / n of random columns X and a target y. */
function problem(seed: number, k: number, target: (x: number[]) => number) {
  const rng = new Rng(seed);
  const n = 400;
  const G = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  const b = new Array<number>(k).fill(0);
  for (let j = 0; j < n; j++) {
    const x = Array.from({ length: k }, () => rng.next() - 0.5);
    const y = target(x) + 0.1 * (rng.next() - 0.5);
    for (let i = 0; i < k; i++) {
      b[i] += (x[i] * y) / n;
      for (let l = 0; l < k; l++) G[i][l] += (x[i] * x[l]) / n;
    }
  }
  return { G, b };
}

describe("convex least squares over a simplex", () => {
  it("recovers interior weights that sum to 1", () => {
    const { G, b } = problem(1, 3, (x) => 0.2 * x[0] + 0.5 * x[1] + 0.3 * x[2]);
    const c = simplexLeastSquares(G, b);
    expect(c[0]).toBeCloseTo(0.2, 1);
    expect(c[1]).toBeCloseTo(0.5, 1);
    expect(c[2]).toBeCloseTo(0.3, 1);
    expect(c.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 12);
  });

  it("puts no weight on a column the target does not use, and never a negative one", () => {
    const { G, b } = problem(2, 4, (x) => 1.5 * x[0] - 0.5 * x[3]);
    const c = simplexLeastSquares(G, b);
    expect(c.every((v) => v >= 0)).toBe(true);
    expect(c[3]).toBe(0);
  });

  it("is no worse than any point of a fine grid on the simplex", () => {
    const { G, b } = problem(3, 3, (x) => Math.sin(3 * x[0]) + x[1] * x[2]);
    const best = quadratic(G, b, simplexLeastSquares(G, b));
    for (let i = 0; i <= 50; i++)
      for (let j = 0; i + j <= 50; j++) expect(best).toBeLessThanOrEqual(quadratic(G, b, [i / 50, j / 50, (50 - i - j) / 50]) + 1e-12);
  });

  it("gives a single column all the weight when the columns are the same", () => {
    const G = [
      [1, 1],
      [1, 1],
    ];
    const c = simplexLeastSquares(G, [0.5, 0.5]);
    expect(c.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 12);
    expect(Math.max(...c)).toBe(1);
  });
});
