/**
 * Carrying additive contributions through a monotone function g of their sum, so that they add
 * up to the quantity the model serves rather than to an internal one (the isolation forest's
 * path length -> its anomaly score; a blend's logit -> the blended score).
 *
 * Rule (DeepLIFT's "rescale"; the secant of g): with parts p_j adding to a - a0, each part is
 * multiplied by (g(a) - g(a0)) / Σ p_j, so the new parts add to g(a) - g(a0) exactly. One factor
 * for every part, so signs and order are kept: a part that lowered a raises g(a) when g decreases,
 * and the largest part stays the largest. When a = a0 (to rounding) the secant is g'(a0).
 */

/** Scales `parts` in place from adding to (a - a0) to adding to (ga - ga0); `slope` = g'(a0). */
export function rescaleParts(parts: Float64Array, ga0: number, ga: number, slope: number): void {
  let sum = 0;
  let mass = 0;
  for (const p of parts) {
    sum += p;
    mass += Math.abs(p);
  }
  // The secant taken on the parts' own sum, not on a - a0, makes the new sum exact even when the
  // parts carry rounding of their own.
  const factor = Math.abs(sum) > 1e-12 * (1 + mass) ? (ga - ga0) / sum : slope;
  for (let j = 0; j < parts.length; j++) parts[j] *= factor;
}
