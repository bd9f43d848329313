/**
 * Greedy ensemble selection (Caruana et al., 2004): starting from the best trial, repeatedly add
 * (with replacement) the trial whose raw scores, averaged in, lower the out-of-fold loss most;
 * stop when no addition helps. The counts become the members' weights. Averaging raw scores keeps
 * the ensemble one tree model (../../gbdt/blend).
 */
import type { Objective } from "../../gbdt/model";
import { loss } from "../../gbdt/objective";

/** At most this many additions after the first member. */
const MAX_STEPS = 20;

export interface EnsembleChoice {
  /** Indices of the chosen candidates and their weights (summing to 1), heaviest first. */
  members: { index: number; weight: number }[];
  /** Out-of-fold loss of the weighted average. */
  loss: number;
}

/**
 * `raws[c]` is candidate c's out-of-fold raw scores (rows × K, row-major) for the labels `y`.
 * Candidates whose raw scores are missing (null) are skipped.
 */
export function selectEnsemble(objective: Objective, raws: (Float64Array | null)[], y: Float64Array, K: number): EnsembleChoice {
  const lossOf = (raw: Float64Array) => loss(objective, raw, y, K);
  const usable = raws.map((r, i) => (r ? i : -1)).filter((i) => i >= 0);
  if (usable.length === 0) throw new Error("no candidate for the ensemble");
  let first = usable[0];
  let bestLoss = lossOf(raws[first]!);
  for (const c of usable.slice(1)) {
    const l = lossOf(raws[c]!);
    if (l < bestLoss) [first, bestLoss] = [c, l];
  }
  const counts = new Map<number, number>([[first, 1]]);
  const sum = Float64Array.from(raws[first]!);
  const trial = new Float64Array(sum.length);
  for (let step = 1; step <= MAX_STEPS; step++) {
    let pick = -1;
    let pickLoss = bestLoss;
    for (const c of usable) {
      const raw = raws[c]!;
      for (let i = 0; i < sum.length; i++) trial[i] = (sum[i] + raw[i]) / (step + 1);
      const l = lossOf(trial);
      // a relative margin: noise-level gains are not worth another member's inference cost
      if (l < pickLoss - 1e-6 * Math.abs(pickLoss)) [pick, pickLoss] = [c, l];
    }
    if (pick < 0) break;
    const raw = raws[pick]!;
    for (let i = 0; i < sum.length; i++) sum[i] += raw[i];
    counts.set(pick, (counts.get(pick) ?? 0) + 1);
    bestLoss = pickLoss;
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const members = [...counts.entries()].map(([index, n]) => ({ index, weight: n / total })).sort((a, b) => b.weight - a.weight);
  return { members, loss: bestLoss };
}
