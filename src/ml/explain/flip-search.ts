/**
 * The prediction-flip search of ./flip (same candidates, same ranking: fewest thresholds crossed,
 * then the shortest move relative to the feature's threshold span, then the earlier feature),
 * made fast enough to run on every explained row, and answering the target INTERVAL rather than
 * one value so the caller can pick a readable value in it.
 *
 * Why it is fast: for one row and one feature the model is piecewise constant in that feature,
 * so each tree that splits on the feature is walked once, following the row everywhere except at
 * that feature's splits, where the set of candidate intervals (a contiguous range of interval
 * indices, or a set of category codes) is divided between the two children; each leaf reached
 * adds its value to the candidates that reach it (a difference array for ranges). Every
 * candidate's raw scores then come from one prefix sum instead of one full prediction each.
 * Only trees whose path for the row meets the feature can change, and a tree's change is bounded
 * by the leaf range below the first such split on the path; from one pass over the row's paths,
 * a feature whose bound cannot flip the prediction, or whose nearest candidate cannot beat the
 * best flip so far, is not walked at all. Both cuts are exact.
 */
import type { GbdtModel, Tree } from "../gbdt/model";
import { goesLeft } from "./evaluate";

export interface FlipTarget {
  feature: number;
  categorical: boolean;
  /** Categorical: the new code. Numeric: a value of the target interval, at its edge nearest the row's value. */
  to: number;
  /** Numeric: the target interval (lo, hi] between the feature's thresholds (±Infinity when unbounded). */
  lo: number;
  hi: number;
  /** Numeric: `to` sits just above `lo` (the move is upward) rather than at `hi`. */
  anchorLow: boolean;
  crossed: number;
  distance: number;
  /** Raw scores with the feature moved into the target (summed in a different order than rawScores). */
  raw: Float64Array;
}

export interface FlipSearchOptions {
  /** Regression only (required there): the minimum absolute move of the prediction. */
  delta?: number;
  /** Features allowed to change (default: all). */
  features?: number[];
}

const f32 = new Float32Array(1);
const i32 = new Int32Array(f32.buffer);

/** Smallest float32 strictly greater than x (x finite, float32), as in ./flip; no allocation. */
function nextUp32(x: number): number {
  if (x === 0) return 1.401298464324817e-45;
  f32[0] = x;
  i32[0] += x > 0 ? 1 : -1;
  return f32[0];
}

interface Best {
  feature: number;
  j: number;
  crossed: number;
  distance: number;
}

export class FlipSearch {
  private readonly K: number;
  /** Per feature: sorted distinct numeric thresholds (empty for categorical features). */
  readonly thresholds: number[][];
  /** Per feature: sorted codes its categorical splits test (null for numeric features). */
  private readonly codes: (number[] | null)[];
  /** Per tree, per node: max - min leaf value of the node's subtree. */
  private readonly range: Float64Array[];
  /** Per feature: the trees whose path for the current row splits on it (count in pathCount). */
  private readonly pathTrees: Int32Array[];
  private readonly pathCount: Int32Array;
  /** Per feature and output: bound on |change of the raw score| when the feature alone changes. */
  private readonly bound: Float64Array;
  private readonly seen: Int32Array;
  private stamp = 0;
  /** Per tree, per node: index of the node's threshold in thresholds[feature] (numeric splits). */
  private readonly thresholdIndex: Int32Array[];
  /** Per tree: its leaf value for the current row. */
  private readonly leaf: Float64Array;
  private acc = new Float64Array(0);
  private stride = 0;
  private row: ArrayLike<number> = [];

  constructor(private readonly model: GbdtModel) {
    const F = model.numFeatures;
    this.K = model.numOutputs;
    const thr: Set<number>[] = Array.from({ length: F }, () => new Set());
    const codes: (Set<number> | null)[] = Array.from({ length: F }, () => null);
    model.trees.forEach((tree) => {
      tree.splitFeature.forEach((f, n) => {
        if (tree.isCategorical[n]) {
          const s = (codes[f] ??= new Set());
          for (const c of tree.leftCategories[n]) s.add(c);
        } else thr[f].add(tree.threshold[n]);
      });
    });
    this.codes = codes.map((s) => (s ? [...s].sort((a, b) => a - b) : null));
    this.thresholds = thr.map((s, f) => (codes[f] ? [] : [...s].sort((a, b) => a - b)));
    this.range = model.trees.map((tree) => {
      const r = new Float64Array(tree.splitFeature.length);
      const walk = (node: number): [number, number] => {
        if (node < 0) return [tree.leafValue[~node], tree.leafValue[~node]];
        const [a, b] = walk(tree.left[node]);
        const [c, d] = walk(tree.right[node]);
        const lo = Math.min(a, c);
        const hi = Math.max(b, d);
        r[node] = hi - lo;
        return [lo, hi];
      };
      if (tree.splitFeature.length) walk(0);
      return r;
    });
    this.pathTrees = Array.from({ length: F }, () => new Int32Array(model.trees.length));
    this.pathCount = new Int32Array(F);
    this.bound = new Float64Array(F * this.K);
    this.seen = new Int32Array(F);
    this.thresholdIndex = model.trees.map((tree) =>
      Int32Array.from(tree.splitFeature, (f, n) => (tree.isCategorical[n] ? -1 : this.thresholds[f].indexOf(tree.threshold[n]))),
    );
    this.leaf = new Float64Array(model.trees.length);
  }

  /**
   * The best flip of `row` (featurized values) whose current raw scores are `raw`, or null when
   * no allowed single-feature change flips it.
   */
  find(row: ArrayLike<number>, raw: Float64Array, options: FlipSearchOptions = {}): FlipTarget | null {
    const { model, K } = this;
    const regression = model.objective === "regression";
    if (regression && !(options.delta! > 0)) throw new Error("FlipSearch: regression needs options.delta > 0");
    const delta = options.delta ?? 0;
    this.row = row;
    this.paths(row);
    const current = regression ? raw[0] : classOf(model, raw, 0);
    let margin = 0;
    for (let k = 0; k < K; k++) margin = Math.max(margin, 1e-9 * (1 + Math.abs(raw[k])));
    // Whether moving feature f alone could flip at all (from the bounds: exact, never a false "no").
    const possible = (f: number): boolean => {
      const b = this.bound;
      if (regression) return b[f] >= delta - margin;
      if (model.objective === "binary") return b[f] + margin >= Math.abs(raw[0]);
      for (let k = 0; k < K; k++) if (k !== current && raw[current] - raw[k] <= b[f * K + current] + b[f * K + k] + margin) return true;
      return false;
    };
    const flipped = (scores: Float64Array, off: number) =>
      regression ? Math.abs(scores[off] - raw[0]) >= delta : classOf(model, scores, off) !== current;

    let best: Best | null = null;
    let bestRaw: Float64Array | null = null;
    const worse = (c: number, d: number) => best !== null && (c > best.crossed || (c === best.crossed && d >= best.distance));
    const features = options.features ?? Array.from({ length: model.numFeatures }, (_, f) => f);
    for (const f of features) {
      if (this.pathCount[f] === 0 || !possible(f)) continue;
      const codes = this.codes[f];
      const t = this.thresholds[f];
      const x = row[f];
      if (codes) {
        // Candidates: every tested code but the current one, in code order, 1 crossing each.
        const cand = codes.filter((c) => c !== x);
        if (cand.length === 0 || worse(1, 1)) continue;
        const scores = this.scoresForCodes(f, cand, raw);
        for (let i = 0; i < cand.length; i++) {
          if (flipped(scores, i * K)) {
            best = { feature: f, j: cand[i], crossed: 1, distance: 1 };
            bestRaw = scores.slice(i * K, i * K + K);
            break;
          }
        }
        continue;
      }
      const L = t.length;
      if (L === 0) continue;
      const span = t[L - 1] - t[0] || Math.abs(t[0]) || 1;
      if (Number.isNaN(x)) {
        if (worse(1, 1)) continue;
        const scores = this.scoresForIntervals(f, raw);
        for (let j = 0; j <= L; j++) {
          if (flipped(scores, j * K)) {
            best = { feature: f, j, crossed: 1, distance: 1 };
            bestRaw = scores.slice(j * K, j * K + K);
            break;
          }
        }
        continue;
      }
      const xf = Math.fround(x);
      let cur = 0;
      while (cur < L && xf > t[cur]) cur++;
      const downDistance = (j: number) => Math.abs(t[j] - xf) / span;
      const upDistance = (j: number) => Math.abs(nextUp32(t[j - 1]) - xf) / span;
      const nearest = Math.min(cur > 0 ? downDistance(cur - 1) : Infinity, cur < L ? upDistance(cur + 1) : Infinity);
      if (worse(1, nearest)) continue;
      let scores: Float64Array | null = null;
      search: for (let c = 1; c <= Math.max(cur, L - cur); c++) {
        const pair: [number, number][] = [];
        if (cur - c >= 0) pair.push([cur - c, downDistance(cur - c)]);
        if (cur + c <= L) pair.push([cur + c, upDistance(cur + c)]);
        if (pair.length === 2 && pair[1][1] < pair[0][1]) pair.reverse(); // ties: lower interval first, as a stable sort
        for (const [j, d] of pair) {
          if (worse(c, d)) break search;
          scores ??= this.scoresForIntervals(f, raw);
          if (flipped(scores, j * K)) {
            best = { feature: f, j, crossed: c, distance: d };
            bestRaw = scores.slice(j * K, j * K + K);
            break search;
          }
        }
      }
    }
    if (!best) return null;
    return this.target(best, row, bestRaw!);
  }

  private target(best: Best, row: ArrayLike<number>, raw: Float64Array): FlipTarget {
    const { feature: f, j, crossed, distance } = best;
    if (this.codes[f]) return { feature: f, categorical: true, to: j, lo: NaN, hi: NaN, anchorLow: false, crossed, distance, raw };
    const t = this.thresholds[f];
    const L = t.length;
    const lo = j > 0 ? t[j - 1] : -Infinity;
    const hi = j < L ? t[j] : Infinity;
    const x = row[f];
    // Upward moves (and filling a missing value into the top interval) land just above lo.
    let anchorLow: boolean;
    if (Number.isNaN(x)) anchorLow = j === L;
    else anchorLow = Math.fround(x) <= lo;
    const to = anchorLow ? nextUp32(lo) : hi;
    return { feature: f, categorical: false, to, lo, hi, anchorLow, crossed, distance, raw };
  }

  /** Raw scores (rows of K) of the row with feature f in each interval 0..L of its thresholds. */
  private scoresForIntervals(f: number, raw: Float64Array): Float64Array {
    const { K, model } = this;
    const L = this.thresholds[f].length;
    const stride = L + 2;
    this.prepare(K * stride);
    this.stride = stride;
    const base = Float64Array.from(raw);
    const trees = this.pathTrees[f];
    for (let i = 0; i < this.pathCount[f]; i++) {
      const t = trees[i];
      base[t % K] -= this.leaf[t];
      this.walkRange(model.trees[t], this.thresholdIndex[t], f, 0, 0, L, t % K);
    }
    const scores = new Float64Array((L + 1) * K);
    for (let k = 0; k < K; k++) {
      let s = 0;
      for (let j = 0; j <= L; j++) {
        s += this.acc[k * stride + j];
        scores[j * K + k] = base[k] + s;
      }
    }
    return scores;
  }

  /** Raw scores (rows of K) of the row with feature f set to each code of `codes`. */
  private scoresForCodes(f: number, codes: number[], raw: Float64Array): Float64Array {
    const { K, model } = this;
    const n = codes.length;
    this.prepare(K * n);
    this.stride = n;
    const base = Float64Array.from(raw);
    const all = Array.from({ length: n }, (_, i) => i);
    const trees = this.pathTrees[f];
    for (let i = 0; i < this.pathCount[f]; i++) {
      const t = trees[i];
      base[t % K] -= this.leaf[t];
      this.walkSet(model.trees[t], f, 0, all, codes, t % K);
    }
    const scores = new Float64Array(n * K);
    for (let i = 0; i < n; i++) for (let k = 0; k < K; k++) scores[i * K + k] = base[k] + this.acc[k * n + i];
    return scores;
  }

  /**
   * One pass over the row's paths: each tree's leaf value, and per feature the trees whose path
   * splits on it and the bound on its effect (the leaf range below its first split on the path).
   */
  private paths(row: ArrayLike<number>): void {
    const { model, K, bound, seen, pathTrees, pathCount } = this;
    bound.fill(0);
    pathCount.fill(0);
    for (let t = 0; t < model.trees.length; t++) {
      const tree = model.trees[t];
      if (tree.splitFeature.length === 0) {
        this.leaf[t] = tree.leafValue[0];
        continue;
      }
      const stamp = ++this.stamp;
      const range = this.range[t];
      const k = t % K;
      let node = 0;
      while (node >= 0) {
        const f = tree.splitFeature[node];
        if (seen[f] !== stamp) {
          seen[f] = stamp;
          bound[f * K + k] += range[node];
          pathTrees[f][pathCount[f]++] = t;
        }
        node = goesLeft(tree, node, row[f]) ? tree.left[node] : tree.right[node];
      }
      this.leaf[t] = tree.leafValue[~node];
    }
  }

  private prepare(size: number): void {
    if (this.acc.length < size) this.acc = new Float64Array(size);
    else this.acc.fill(0, 0, size);
  }

  /** Intervals a..b reach `node`; the row decides every split but feature f's. */
  private walkRange(tree: Tree, tIndex: Int32Array, f: number, node: number, a: number, b: number, out: number): void {
    const row = this.row;
    while (node >= 0) {
      const sf = tree.splitFeature[node];
      if (sf === f) {
        const s = tIndex[node]; // intervals j <= s go left (x <= t[s])
        if (b <= s) node = tree.left[node];
        else if (a > s) node = tree.right[node];
        else {
          this.walkRange(tree, tIndex, f, tree.right[node], s + 1, b, out);
          b = s;
          node = tree.left[node];
        }
      } else node = goesLeft(tree, node, row[sf]) ? tree.left[node] : tree.right[node];
    }
    const v = tree.leafValue[~node];
    const o = out * this.stride;
    this.acc[o + a] += v;
    this.acc[o + b + 1] -= v;
  }

  /** Candidate codes (indices into `codes`) `idx` reach `node`. */
  private walkSet(tree: Tree, f: number, node: number, idx: number[], codes: number[], out: number): void {
    const row = this.row;
    while (node >= 0) {
      const sf = tree.splitFeature[node];
      if (sf === f) {
        const left: number[] = [];
        const right: number[] = [];
        for (const i of idx) (goesLeft(tree, node, codes[i]) ? left : right).push(i);
        if (left.length && right.length) this.walkSet(tree, f, tree.right[node], right, codes, out);
        if (left.length) {
          idx = left;
          node = tree.left[node];
        } else node = tree.right[node];
      } else node = goesLeft(tree, node, row[sf]) ? tree.left[node] : tree.right[node];
    }
    const v = tree.leafValue[~node];
    const o = out * this.stride;
    for (const i of idx) this.acc[o + i] += v;
  }
}

/** Predicted class from raw scores at `off`, exactly as predictRow decides it. */
function classOf(model: GbdtModel, raw: Float64Array, off: number): number {
  if (model.objective === "binary") {
    const p = 1 / (1 + Math.exp(-raw[off]));
    return p > 1 - p ? 1 : 0;
  }
  const K = model.numOutputs;
  let max = -Infinity;
  for (let k = 0; k < K; k++) max = Math.max(max, raw[off + k]);
  let sum = 0;
  for (let k = 0; k < K; k++) sum += Math.exp(raw[off + k] - max);
  let best = 0;
  let bestP = Math.exp(raw[off] - max) / sum;
  for (let k = 1; k < K; k++) {
    const p = Math.exp(raw[off + k] - max) / sum;
    if (p > bestP) {
      best = k;
      bestP = p;
    }
  }
  return best;
}
