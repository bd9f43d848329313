/**
 * How well a space's neighbourhoods predict a column the space was not built from: the
 * leave-column-out neighbour score, which ./choose-space compares between spaces.
 *
 * For each held-out column, the pool rows are mapped into the space with that column hidden (its
 * featurizer features all missing: a datetime's parts would give each other away); each query row
 * (the first Q pool rows) takes its k nearest other pool rows, and they predict each of the
 * column's features — the mean of theirs for a numeric one, scored 1 − squared error / variance
 * (an R² per row), the most frequent level for a categorical one, scored 1 when right. Values are
 * read the way the spaces read them (../ssl/layout: standardized and clipped, or the one-hot
 * slot), so an outlier cannot dominate a mean.
 *
 * A space's score is the mean over the held-out columns of each column's mean over the query rows
 * where it is present. Per query row the mean of its columns' scores is kept too: the two spaces
 * are scored on the same rows, so their difference row by row is a paired sample whose standard
 * error says whether a gap is more than noise.
 */
import type { FeatureMatrix, FeaturizerSpec } from "../featurize";
import { TopK } from "../knn/topk";
import { compileLayout, readRow, type SslFeature } from "../ssl/layout";

interface Target {
  /** Per pool row: standardized clipped value (numeric) or one-hot slot (categorical); NaN when missing. */
  value: Float64Array;
  /** Slot count of a categorical feature; 0 for a numeric one. */
  levels: number;
  /** Mean of the present values over the pool: a numeric prediction when no neighbour has one. */
  mean: number;
  /** Variance of the present values over the pool: a numeric feature's R² denominator (> 0 when it varies). */
  variance: number;
}

interface HeldOutColumn {
  /** The source column's name. */
  name: string;
  /** Featurizer features built from it, hidden together. */
  hidden: number[];
  /** Its features that vary over the pool: what is predicted. */
  targets: Target[];
}

export interface ScorePlan {
  /** Pool rows P; the first `queryRows` of them are the queries, their neighbours the other P − 1. */
  poolRows: number;
  queryRows: number;
  k: number;
  columns: HeldOutColumn[];
}

/** The pool's vectors [P x dims] in a space, with the given featurizer features hidden. */
export type SpaceWithout = (hidden: number[]) => { vectors: Float64Array; dims: number };

export interface SpaceScore {
  /** Mean over the held-out columns of their mean score over the query rows. */
  score: number;
  /** Per held-out column, in plan order. */
  perColumn: number[];
  /** Per query row: the mean score of the columns present in it (NaN when none is). */
  perQuery: Float64Array;
}

/**
 * The plan over a pool (a featurized matrix whose first `queryRows` rows are the queries): one
 * held-out column per source column in `sources`, each with its features that vary over the pool.
 * A column with none (constant, or all missing) is left out: nothing to predict.
 */
export function scorePlan(
  featurizer: FeaturizerSpec,
  layout: SslFeature[],
  pool: FeatureMatrix,
  sources: string[],
  queryRows: number,
  k: number,
): ScorePlan {
  const L = compileLayout(layout);
  const P = pool.numRows;
  const values = new Float64Array(P * L.F);
  const present = new Uint8Array(P * L.F);
  for (let i = 0; i < P; i++) readRow(L, pool.data, i, values, present, i * L.F);
  const columns: HeldOutColumn[] = [];
  for (const name of sources) {
    const hidden = featurizer.features.flatMap((f, j) => (f.source === name ? [j] : []));
    const targets: Target[] = [];
    for (const j of hidden) {
      const value = new Float64Array(P).fill(NaN);
      for (let i = 0; i < P; i++) if (present[i * L.F + j] === 1) value[i] = values[i * L.F + j];
      const { mean, variance } = moments(value);
      // a categorical slot's variance only says whether the feature varies
      if (variance > 1e-12) targets.push({ value, levels: L.categorical[j] === 1 ? L.width[j] : 0, mean, variance });
    }
    if (targets.length > 0) columns.push({ name, hidden, targets });
  }
  return { poolRows: P, queryRows: Math.min(queryRows, P), k: Math.min(k, P - 1), columns };
}

/** The neighbour score of one space on a plan. */
export function neighbourScore(plan: ScorePlan, without: SpaceWithout): SpaceScore {
  const Q = plan.queryRows;
  const sum = new Float64Array(Q);
  const count = new Int32Array(Q);
  const perColumn = plan.columns.map((col) => {
    const { vectors, dims } = without(col.hidden);
    const nearest = neighbours(vectors, dims, plan.poolRows, Q, plan.k);
    const rowSum = new Float64Array(Q);
    const rowCount = new Int32Array(Q);
    for (const t of col.targets) {
      for (let q = 0; q < Q; q++) {
        const y = t.value[q];
        if (y !== y) continue;
        const near = nearest.subarray(q * plan.k, (q + 1) * plan.k);
        rowSum[q] += t.levels > 0 ? (majority(t, near) === y ? 1 : 0) : 1 - (y - mean(t, near)) ** 2 / t.variance;
        rowCount[q]++;
      }
    }
    let colSum = 0;
    let colRows = 0;
    for (let q = 0; q < Q; q++) {
      if (rowCount[q] === 0) continue;
      const s = rowSum[q] / rowCount[q];
      colSum += s;
      colRows++;
      sum[q] += s;
      count[q]++;
    }
    return colRows > 0 ? colSum / colRows : 0;
  });
  const perQuery = Float64Array.from(sum, (s, q) => (count[q] > 0 ? s / count[q] : NaN));
  const score = perColumn.length > 0 ? perColumn.reduce((a, b) => a + b, 0) / perColumn.length : 0;
  return { score, perColumn, perQuery };
}

/**
 * Per query row (the first Q of P), its k nearest other pool rows [Q x k], nearest first; equal
 * distances in pool order. Brute force: the pool is a bounded sample.
 */
function neighbours(x: Float64Array, dims: number, P: number, Q: number, k: number): Int32Array {
  const out = new Int32Array(Q * k);
  const top = new TopK(k);
  const dists = new Float64Array(k);
  const query = new Float64Array(dims);
  for (let q = 0; q < Q; q++) {
    top.reset();
    query.set(x.subarray(q * dims, (q + 1) * dims));
    let bound = Infinity;
    for (let i = 0; i < P; i++) {
      if (i === q) continue;
      const b = i * dims;
      let d = 0;
      for (let c = 0; c < dims; c++) {
        const e = query[c] - x[b + c];
        d += e * e;
      }
      if (d <= bound) {
        top.push(d, i);
        bound = top.bound;
      }
    }
    top.drain(out.subarray(q * k, (q + 1) * k), dists);
  }
  return out;
}

/** Mean of the neighbours' present values; the pool's mean when none has one. */
function mean(t: Target, near: Int32Array): number {
  let s = 0;
  let n = 0;
  for (const i of near) {
    const v = t.value[i];
    if (v === v) {
      s += v;
      n++;
    }
  }
  return n > 0 ? s / n : t.mean;
}

/** The neighbours' most frequent slot, at equal counts the nearer neighbour's; -1 (a miss) when none has one. */
function majority(t: Target, near: Int32Array): number {
  const counts = new Int32Array(t.levels);
  for (const i of near) {
    const v = t.value[i];
    if (v === v) counts[v]++;
  }
  let best = -1;
  for (const i of near) {
    const v = t.value[i];
    if (v === v && (best < 0 || counts[v] > counts[best])) best = v;
  }
  return best;
}

/** Mean and variance of the present values (NaN = missing); variance 0 with fewer than two. */
function moments(value: Float64Array): { mean: number; variance: number } {
  let n = 0;
  let mean = 0;
  let m2 = 0;
  for (const v of value) {
    if (v !== v) continue;
    n++;
    const d = v - mean;
    mean += d / n;
    m2 += d * (v - mean);
  }
  return { mean, variance: n > 1 ? m2 / n : 0 };
}
