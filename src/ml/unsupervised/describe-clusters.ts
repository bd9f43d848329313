/**
 * Cluster descriptions a person can read, from what sets each cluster apart from the whole, in
 * the ORIGINAL units (the featurized matrix: raw numbers, category codes of the featurizer's
 * vocabulary), not the standardized space:
 * - numeric: the cluster's mean against the overall mean, "income high (mean 91.2k vs 52k overall)";
 *   distinctiveness = |mean_c - mean| / std (a standardized mean difference);
 * - categorical: its most over-represented level, "plan mostly 'premium' (78% vs 30% overall)"
 *   ("often" under half); boolean: the share of true. Distinctiveness = (p_c - p) / √(p(1 - p)),
 *   the same standardized difference for the level's 0/1 indicator, so the kinds compare.
 * The MAX_PARTS most distinctive columns at or above MIN_EFFECT make the text; datetime parts
 * are left out (their means rarely read well). Missing values are ignored.
 */
import type { FeatureMatrix, FeaturizerSpec } from "../featurize";

/** Columns named per cluster. */
const MAX_PARTS = 3;
/** Below this standardized difference a column does not set the cluster apart. */
const MIN_EFFECT = 0.25;

export interface ClusterProfiles {
  /** One sentence per cluster. */
  descriptions: string[];
  /** Per cluster: mean of each numeric (and boolean) source column over its rows (null: none present). */
  means: Record<string, number | null>[];
}

interface Part {
  effect: number;
  text: string;
}

export function describeClusters(spec: FeaturizerSpec, m: FeatureMatrix, labels: Int32Array, k: number): ClusterProfiles {
  const parts: Part[][] = Array.from({ length: k }, () => []);
  const means: Record<string, number | null>[] = Array.from({ length: k }, () => ({}));
  const F = m.numFeatures;
  spec.features.forEach((f, j) => {
    if (f.transform === "numeric" || f.transform === "boolean") {
      const s = columnStats(m.data, F, j, labels, k, m.numRows);
      for (let c = 0; c < k; c++) means[c][f.source] = s.count[c] > 0 ? s.sum[c] / s.count[c] : null;
      if (f.transform === "numeric") numericParts(f.source, s, parts);
      else levelParts(f.source, s.sum, s.count, s.totalSum, s.total, "true", parts, true);
    } else if (f.transform === "category") {
      categoryParts(f.source, f.vocabulary ?? [], m, j, labels, k, parts);
    }
  });
  const descriptions = parts.map((p) => {
    const top = p
      .filter((x) => x.effect >= MIN_EFFECT)
      .sort((a, b) => b.effect - a.effect)
      .slice(0, MAX_PARTS);
    return top.length ? top.map((x) => x.text).join(", ") : "close to the overall averages (no column sets it apart)";
  });
  return { descriptions, means };
}

interface Stats {
  sum: Float64Array;
  count: Float64Array;
  totalSum: number;
  total: number;
  std: number;
}

function columnStats(data: Float32Array, F: number, j: number, labels: Int32Array, k: number, n: number): Stats {
  const sum = new Float64Array(k);
  const count = new Float64Array(k);
  let totalSum = 0;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const x = data[i * F + j];
    if (x !== x) continue;
    sum[labels[i]] += x;
    count[labels[i]]++;
    totalSum += x;
    total++;
  }
  const mean = total > 0 ? totalSum / total : 0;
  let ss = 0;
  for (let i = 0; i < n; i++) {
    const x = data[i * F + j];
    if (x === x) ss += (x - mean) * (x - mean);
  }
  return { sum, count, totalSum, total, std: total > 0 ? Math.sqrt(ss / total) : 0 };
}

function numericParts(name: string, s: Stats, parts: Part[][]): void {
  if (!(s.std > 0)) return;
  const mean = s.totalSum / s.total;
  for (let c = 0; c < parts.length; c++) {
    if (s.count[c] === 0) continue;
    const mc = s.sum[c] / s.count[c];
    const a = formatNumber(mc);
    const b = formatNumber(mean);
    // equal when printed: the difference would not read as one
    if (a === b) continue;
    parts[c].push({ effect: Math.abs(mc - mean) / s.std, text: `${name} ${mc > mean ? "high" : "low"} (mean ${a} vs ${b} overall)` });
  }
}

function categoryParts(name: string, vocabulary: string[], m: FeatureMatrix, j: number, labels: Int32Array, k: number, parts: Part[][]): void {
  const V = vocabulary.length;
  const counts = new Float64Array(k * V);
  const present = new Float64Array(k);
  const F = m.numFeatures;
  for (let i = 0; i < m.numRows; i++) {
    const x = m.data[i * F + j];
    if (!(x >= 0 && x < V)) continue;
    counts[labels[i] * V + x]++;
    present[labels[i]]++;
  }
  let total = 0;
  for (let c = 0; c < k; c++) total += present[c];
  if (total === 0) return;
  const candidates: Part[][] = Array.from({ length: k }, () => []);
  for (let v = 0; v < V; v++) {
    const inCluster = new Float64Array(k);
    let all = 0;
    for (let c = 0; c < k; c++) all += inCluster[c] = counts[c * V + v];
    levelParts(name, inCluster, present, all, total, vocabulary[v], candidates, false);
  }
  // one part per column: its most distinctive level
  for (let c = 0; c < k; c++) {
    const best = candidates[c].sort((a, b) => b.effect - a.effect)[0];
    if (best) parts[c].push(best);
  }
}

/** Over-representation of one level (hits among present values) in each cluster. */
function levelParts(
  name: string,
  hits: Float64Array,
  present: Float64Array,
  allHits: number,
  total: number,
  level: string,
  parts: Part[][],
  boolean: boolean,
): void {
  const p = allHits / total;
  if (!(p > 0 && p < 1)) return;
  const sd = Math.sqrt(p * (1 - p));
  for (let c = 0; c < parts.length; c++) {
    if (present[c] === 0) continue;
    const pc = hits[c] / present[c];
    const a = percent(pc);
    const b = percent(p);
    if (boolean) {
      if (a === b) continue;
      parts[c].push({ effect: Math.abs(pc - p) / sd, text: `${name} true for ${a} (vs ${b} overall)` });
    } else if (pc > p && a !== b) {
      parts[c].push({ effect: (pc - p) / sd, text: `${name} ${pc >= 0.5 ? "mostly" : "often"} '${level}' (${a} vs ${b} overall)` });
    }
  }
}

function percent(p: number): string {
  const v = p * 100;
  return `${v > 0 && v < 1 ? "<1" : v > 99 && v < 100 ? ">99" : Math.round(v)}%`;
}

/**
 * A number for a sentence: 3 significant digits, with k / M / B / T suffixes from a thousand up
 * (91234 -> "91.2k", 52000 -> "52k", 999960 -> "1M", 0.01234 -> "0.0123", 7 -> "7").
 * @internal exported for its unit test (test/ml/clustering.test.ts)
 */
export function formatNumber(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const round3 = (v: number) => Number(v.toPrecision(3));
  const a = Math.abs(x);
  for (const [scale, suffix] of UNITS) if (round3(a / scale) >= 1) return `${round3(x / scale)}${suffix}`;
  if (a === 0) return "0";
  if (a < 1e-4) return x.toExponential(2).replace(/\.?0+e/, "e");
  return String(round3(x));
}

const UNITS: [number, string][] = [
  [1e12, "T"],
  [1e9, "B"],
  [1e6, "M"],
  [1e3, "k"],
];
