/**
 * Per-row explanation of a clustering model: the columns that put the row in its cluster rather
 * than in the nearest other one. The explained quantity is the row's margin in the model's own
 * space, distance to the nearest other centre minus distance to its own (> 0: the row is closer to
 * its own); base_value + Σ contributions = that margin.
 * - "features" space: the margin splits exactly by dimension, since
 *   d_o - d_k = (d_o² - d_k²) / (d_o + d_k) = Σ_t [(x_t - o_t)² - (x_t - k_t)²] / (d_o + d_k);
 *   a column gets the terms of its dimensions (a category's one-hot block, a date's parts). Base
 *   value 0: the boundary between the two clusters.
 * - "embedding" space: the embedding mixes the columns, so they get Shapley values of the margin
 *   (./shapley), a column's absence read as a missing value (the encoder's "unknown"). Base value:
 *   the margin of a row with every value missing.
 * - Flip: the smallest one-column change that moves the row to another cluster (./cluster-flip).
 */
import { applyFeaturizer, type FeaturizerSpec } from "../featurize";
import type { Frame } from "../frame";
import { clusterFlip } from "./cluster-flip";
import { clusterSpace, marginOf, type Placement, placementOf, toSpace } from "./cluster-space";
import type { ClusteringExplainer } from "./clustering-file";
import { formatNumber } from "./explain-format";
import type { ColumnContribution } from "./explain-prediction";
import { valueText } from "./explain-text";
import { type CellValue, cellOf, type InputColumn, mapColumns, subFrame } from "./input-columns";
import { EXACT_PLAYERS, PERMUTATIONS, shapleyValues } from "./shapley";

export interface ClusterRowExplanation {
  /** Every input column, by |contribution| descending; in distance units of the model's space. */
  feature_contributions: ColumnContribution[];
  /** base_value + Σ contributions = distance to the nearest other centre - distance to the own one. */
  base_value: number;
  output_scale: string;
  /** The cluster, as inference answered it. */
  prediction: number;
  nearest_other_cluster: number;
  distance: number;
  other_distance: number;
  prediction_flip: { column: string; from: CellValue; to: CellValue; new_prediction: number } | null;
  flip_reason: string | null;
  explanation_text: string;
  explanation_label: string;
  explanation_gloss: string;
}

export function explainClusters(
  ex: ClusteringExplainer,
  featurizer: FeaturizerSpec,
  frame: Frame,
  rows: number[],
  descriptions: Map<number, string> = new Map(),
): ClusterRowExplanation[] {
  const F = featurizer.features.length;
  if (ex.layout.length !== F) throw new Error(`explainClusters: the model has ${ex.layout.length} features, the featurizer ${F}`);
  for (const r of rows) {
    if (!Number.isInteger(r) || r < 0 || r >= frame.rowCount)
      throw new RangeError(`explainClusters: row ${r} is not in the frame (${frame.rowCount} rows)`);
  }
  const s = clusterSpace(ex, featurizer);
  const { columns, columnOf } = mapColumns(featurizer, frame);
  const featuresOf: number[][] = columns.map(() => []);
  columnOf.forEach((j, f) => featuresOf[j].push(f));
  const m = applyFeaturizer(featurizer, subFrame(rows, columns));
  const X = toSpace(s, m.data, rows.length);
  const dims = ex.dims;
  const indexOf = new Map(columns.map((c, j) => [c.name, j]));

  return rows.map((r, i) => {
    const x = m.data.subarray(i * F, (i + 1) * F);
    const p = placementOf(s, X, i);
    const perColumn = new Float64Array(columns.length);
    let base = 0;
    if (ex.space === "features") {
      // per dimension t of feature f: [(x_t - o_t)² - (x_t - k_t)²] / (d_o + d_k)
      const denom = p.dOther + p.dOwn;
      for (let f = 0; f < F; f++) {
        for (let t = s.layout.offset[f]; t < s.layout.offset[f] + s.layout.width[f]; t++) {
          const v = X[i * dims + t];
          const o = ex.centroids[p.other * dims + t];
          const k = ex.centroids[p.own * dims + t];
          if (denom > 0) perColumn[columnOf[f]] += ((v - o) ** 2 - (v - k) ** 2) / denom;
        }
      }
    } else {
      const { phi, empty } = shapleyValues(columns.length, (coalitions) => {
        const data = new Float32Array(coalitions.length * F);
        coalitions.forEach((mask, c) => {
          for (let f = 0; f < F; f++) data[c * F + f] = mask[columnOf[f]] ? x[f] : NaN;
        });
        const E = toSpace(s, data, coalitions.length);
        return Float64Array.from(coalitions, (_, c) => marginOf(s, E, c, p.own, p.other));
      });
      perColumn.set(phi);
      base = empty;
    }
    const contributions: ColumnContribution[] = columns.map((c, j) => ({ column: c.name, value: cellOf(c, r), contribution: perColumn[j] }));
    contributions.sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution) || (a.column < b.column ? -1 : a.column > b.column ? 1 : 0));

    const order = [...contributions].sort((a, b) => b.contribution - a.contribution).map((c) => indexOf.get(c.column)!);
    const found = clusterFlip(s, featurizer, columns, featuresOf, x, p.own, order);
    const flip = found && {
      column: found.column,
      from: cellOf(columns[indexOf.get(found.column)!], r),
      to: found.to,
      new_prediction: found.newCluster,
    };
    const texts = clusterTexts(ex, columns, contributions, p, base, found?.phrase ?? "", found?.newCluster ?? -1, descriptions);
    return {
      feature_contributions: contributions,
      base_value: base,
      output_scale: `distance in the model's ${ex.space === "features" ? "standardized feature" : "embedding"} space`,
      prediction: p.own,
      nearest_other_cluster: p.other,
      distance: p.dOwn,
      other_distance: p.dOther,
      prediction_flip: flip,
      flip_reason: flip
        ? null
        : "no single-column change to a value the training data takes moves the row to another cluster (dates are not changed)",
      ...texts,
    };
  });
}

function clusterTexts(
  ex: ClusteringExplainer,
  columns: InputColumn[],
  contributions: ColumnContribution[],
  p: Placement,
  base: number,
  flipPhrase: string,
  flipCluster: number,
  descriptions: Map<number, string>,
): { explanation_text: string; explanation_label: string; explanation_gloss: string } {
  const byName = new Map(columns.map((c) => [c.name, c]));
  const total = contributions.reduce((a, c) => a + Math.abs(c.contribution), 0);
  const toward = contributions.filter((c) => c.contribution > 1e-9 * (1 + total)).slice(0, 2);
  const drivers = toward.map((c) => `${c.column} is ${valueText(byName.get(c.column)!, c.value)}`).join(" and ");
  let text = `Placed in cluster ${p.own}${drivers ? ` mainly because ${drivers}` : ""}; the nearest other cluster is ${p.other}.`;
  if (flipPhrase) text += ` ${flipPhrase[0].toUpperCase()}${flipPhrase.slice(1)} it would be in cluster ${flipCluster}.`;
  const main = toward[0];
  const label = main ? `${main.column}=${valueText(byName.get(main.column)!, main.value, false)}` : `cluster ${p.own}`;

  const margin = p.dOther - p.dOwn;
  const described = [p.own, p.other].filter((c) => descriptions.has(c)).map((c) => `Cluster ${c}: ${descriptions.get(c)}.`);
  const what = `they add to the base value ${formatNumber(base)} to give ${formatNumber(margin)}, the distance to cluster ${p.other}'s centre (${formatNumber(p.dOther)}) minus the distance to cluster ${p.own}'s (${formatNumber(p.dOwn)}); the larger it is, the more firmly the row is in cluster ${p.own}`;
  const gloss =
    ex.space === "features"
      ? `Contributions are in distance units of the space the model clusters in (numbers as standard scores, clipped at ±5; categories one-hot), summed per column: ${what}. The base value 0 is the boundary between the two clusters.`
      : `Contributions are in distance units of the model's embedding space: Shapley values of each column, a column left out counting as missing (${columns.length <= EXACT_PLAYERS ? "exact" : `estimated from ${PERMUTATIONS} orders of the columns`}); ${what}. The base value is that difference for a row with every value missing.`;
  return { explanation_text: text, explanation_label: label, explanation_gloss: [gloss, ...described].join(" ") };
}
