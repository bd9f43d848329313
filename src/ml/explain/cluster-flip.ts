/**
 * The smallest one-column change that puts a row in another cluster. "Smallest" is measured
 * where the model measures: in the standardized feature space (a number's move in standard
 * deviations, clipped as the model clips; a category's move from one one-hot level to another
 * is √2, from missing to a level 1), for either clustering space, so columns compare.
 * Candidates are the values the training data takes: a number's 21 stored quantiles, each
 * category level the layout tells apart, the other boolean. All candidates of a row are assigned
 * in one batch by the model itself; the smallest that changes the cluster wins (ties: the column
 * with the larger contribution), and a number is then narrowed toward the row's value to the
 * nearest point that still changes it (./column-change). Datetime columns are not changed.
 */
import type { FeaturizerSpec } from "../featurize";
import { type ClusterSpace, clustersOf, toSpace } from "./cluster-space";
import { changeText, nearestChange } from "./column-change";
import type { CellValue, InputColumn } from "./input-columns";

export interface ClusterFlip {
  column: string;
  to: CellValue;
  phrase: string;
  newCluster: number;
}

interface Candidate {
  feature: number;
  value: number;
  cost: number;
  rank: number;
}

/** `order`: column indices by contribution, largest first. */
export function clusterFlip(
  s: ClusterSpace,
  featurizer: FeaturizerSpec,
  columns: InputColumn[],
  featuresOf: number[][],
  x: Float32Array,
  own: number,
  order: number[],
): ClusterFlip | null {
  const F = s.layout.F;
  const candidates: Candidate[] = [];
  order.forEach((j, rank) => {
    if (featuresOf[j].length !== 1 || columns[j].type === "datetime") return;
    const f = featuresOf[j][0];
    for (const c of candidatesOf(s, featurizer, f, x[f])) candidates.push({ feature: f, value: c.value, cost: c.cost, rank });
  });
  if (candidates.length === 0) return null;
  const assign = (rows: { feature: number; value: number }[]) => {
    const data = new Float32Array(rows.length * F);
    rows.forEach((r, i) => {
      data.set(x, i * F);
      data[i * F + r.feature] = r.value;
    });
    return clustersOf(s, toSpace(s, data, rows.length), rows.length);
  };
  const labels = assign(candidates);
  let best: Candidate | null = null;
  candidates.forEach((c, i) => {
    if (labels[i] !== own && (!best || c.cost < best.cost || (c.cost === best.cost && c.rank < best.rank))) best = c;
  });
  if (!best) return null;
  const { feature: f, value: candidate } = best as Candidate;
  const def = featurizer.features[f];
  const moves = (values: number[]) => Array.from(assign(values.map((value) => ({ feature: f, value }))), (c) => c !== own);
  const value = def.transform === "numeric" ? nearestChange(x[f], candidate, moves, s.ex.stats[f]) : candidate;
  const text = changeText(def.source, def, value);
  return { column: def.source, to: text.to, phrase: text.phrase, newCluster: assign([{ feature: f, value }])[0] };
}

/** The values feature f is tried at, each with its move in the standardized space. */
function candidatesOf(s: ClusterSpace, featurizer: FeaturizerSpec, f: number, x0: number): { value: number; cost: number }[] {
  const L = s.layout;
  const stats = s.ex.stats[f];
  const def = featurizer.features[f];
  if (L.categorical[f] === 1) {
    // one code per one-hot slot (codes sharing the "other" slot are the same to the model)
    const slotOf = L.slotOf[f]!;
    const own = x0 === x0 && x0 >= 0 && x0 < slotOf.length ? slotOf[x0] : x0 === x0 && L.other[f] ? L.width[f] - 1 : -1;
    const bySlot = new Map<number, number>();
    const codes = def.vocabulary?.length ?? 0;
    for (let code = 0; code < codes; code++) {
      const slot = code < slotOf.length ? slotOf[code] : L.other[f] ? L.width[f] - 1 : -1;
      if (slot >= 0 && slot !== own && !bySlot.has(slot)) bySlot.set(slot, code);
    }
    return [...bySlot.values()].map((value) => ({ value, cost: own >= 0 ? Math.SQRT2 : 1 }));
  }
  if (stats.kind !== "numeric") return [];
  const z = (v: number) => (v !== v ? 0 : Math.max(-5, Math.min(5, (v - L.mean[f]) * L.invStd[f])));
  const values = def.transform === "boolean" ? [0, 1] : [...new Set(stats.quantiles)];
  return values.filter((v) => Math.fround(v) !== x0).map((value) => ({ value, cost: Math.abs(z(value) - z(x0)) }));
}
