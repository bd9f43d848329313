/**
 * c(n): the average path length of an unsuccessful search in a binary search tree of n keys,
 * which is the expected depth at which isolation ends for a point among n (Liu, Ting & Zhou 2008):
 * c(n) = 2·H(n-1) - 2(n-1)/n for n > 2, c(2) = 1, c(n ≤ 1) = 0.
 *
 * It normalizes the forest's mean path length into a score (2^(-E[h]/c(ψ))) and stands in for
 * the unbuilt subtree below a leaf that still holds several sub-sample rows (h = depth + c(size)).
 * H is exact for small arguments (so c(3) = 5/3, hand-checkable) and the asymptotic expansion of
 * the harmonic number beyond, which is exact to double precision there; the paper's ln(i) + γ
 * alone is off by 1/(2i), noticeable for the small leaves that matter most.
 */

const EULER_GAMMA = 0.5772156649015329;
const EXACT_UP_TO = 64;

/**
 * The harmonic number H(i) = 1 + 1/2 + ... + 1/i (i ≥ 0 an integer; H(0) = 0).
 * @internal exported for its unit test (test/ml/iforest.test.ts)
 */
export function harmonic(i: number): number {
  if (i <= EXACT_UP_TO) {
    let h = 0;
    for (let k = i; k >= 1; k--) h += 1 / k; // smallest terms first: one rounding less
    return h;
  }
  const inv2 = 1 / (i * i);
  return Math.log(i) + EULER_GAMMA + 1 / (2 * i) - inv2 / 12 + (inv2 * inv2) / 120 - (inv2 * inv2 * inv2) / 252;
}

/** c(n) for an integer n ≥ 0. */
export function averagePathLength(n: number): number {
  if (n <= 1) return 0;
  if (n === 2) return 1;
  return 2 * harmonic(n - 1) - (2 * (n - 1)) / n;
}
