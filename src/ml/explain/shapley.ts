/**
 * Shapley values of a set function over C players (the input columns), for models whose output
 * is not additive in the columns (the clustering margin in an encoder's embedding). v(S) is the
 * model with the columns outside S read as missing — the encoder's own notion of "unknown", which
 * it was trained on (masked features) — so no reference data is needed.
 * - C ≤ EXACT_PLAYERS: exact, over all 2^C coalitions.
 * - Beyond: the average over PERMUTATIONS orders (half of them random, seeded, half their
 *   reverses, which cancels much of the sampling error) of each player's marginal gain. Each
 *   order's gains add up to v(all) - v(∅) exactly, so the estimate keeps that sum exactly.
 * `value` is called once per call with every coalition needed (batched evaluation).
 */
import { Rng } from "../random";

export const EXACT_PLAYERS = 8;
export const PERMUTATIONS = 16;
/** Fixed, so a row's explanation does not depend on which other rows are explained with it. */
const SEED = 0;

/** Coalitions as 0/1 masks over the players; returns v of each. */
export type CoalitionValue = (coalitions: Uint8Array[]) => Float64Array;

/** φ per player and v(∅) (the base: v(∅) + Σ φ = v(all)). */
export function shapleyValues(C: number, value: CoalitionValue): { phi: Float64Array; empty: number } {
  return C <= EXACT_PLAYERS ? exact(C, value) : sampled(C, value);
}

function exact(C: number, value: CoalitionValue): { phi: Float64Array; empty: number } {
  const n = 1 << C;
  const masks = Array.from({ length: n }, (_, s) => Uint8Array.from({ length: C }, (_, j) => (s >> j) & 1));
  const v = value(masks);
  // weight of a coalition of size s not holding the player: s! (C - s - 1)! / C!
  const weight = new Float64Array(C);
  for (let s = 0; s < C; s++) weight[s] = 1 / (C * binomial(C - 1, s));
  const phi = new Float64Array(C);
  for (let s = 0; s < n; s++) {
    const size = popcount(s);
    for (let j = 0; j < C; j++) if (!((s >> j) & 1)) phi[j] += weight[size] * (v[s | (1 << j)] - v[s]);
  }
  return { phi, empty: v[0] };
}

function sampled(C: number, value: CoalitionValue): { phi: Float64Array; empty: number } {
  const rng = new Rng(SEED);
  const orders: Int32Array[] = [];
  for (let p = 0; p < PERMUTATIONS / 2; p++) {
    const order = Int32Array.from({ length: C }, (_, j) => j);
    rng.shuffle(order);
    orders.push(order, order.slice().reverse());
  }
  // per order: the empty coalition, then one more player at a time
  const masks: Uint8Array[] = [];
  for (const order of orders) {
    const mask = new Uint8Array(C);
    masks.push(mask.slice());
    for (const j of order) {
      mask[j] = 1;
      masks.push(mask.slice());
    }
  }
  const v = value(masks);
  const phi = new Float64Array(C);
  orders.forEach((order, p) => {
    const at = p * (C + 1);
    order.forEach((j, step) => (phi[j] += v[at + step + 1] - v[at + step]));
  });
  for (let j = 0; j < C; j++) phi[j] /= orders.length;
  return { phi, empty: v[0] };
}

function binomial(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

function popcount(s: number): number {
  let c = 0;
  for (let x = s; x; x &= x - 1) c++;
  return c;
}
