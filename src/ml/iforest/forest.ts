/**
 * Isolation forest (Liu, Ting & Zhou 2008) on a featurized float32 matrix: each tree isolates a
 * random sub-sample of ψ rows (without replacement) by random splits — a random feature among
 * those not constant in the node, a threshold uniform between the node's min and max — down to
 * depth ceil(log2 ψ). Anomalies, few and different, end in short paths.
 *
 * Decisions beyond the paper, each identical in the engine and the ONNX TreeEnsemble:
 * - Missing values (NaN): a node's range ignores them, and NaN goes to the side that received
 *   more of the node's non-missing sub-sample rows (left on a tie). Missing thus reads as "the
 *   usual value here", never as a reason to isolate, and the rule needs no imputation statistic.
 *   NaN training rows follow the same side, so leaf sizes count them.
 * - Thresholds are rounded to float32 (and kept strictly below the node's max), so `x <= t`
 *   decides the same on the float32 input whether compared in float or double.
 * - Categorical features are their integer codes, split like numbers. The featurizer numbers
 *   categories by decreasing frequency, so rare levels sit at the top of the code range, where a
 *   uniform threshold cuts them off first; one LEQ node per split keeps the graph small and the
 *   scoring loop branch-free of set look-ups (BRANCH_MEMBER with random subsets separates a rare
 *   level from the rest only with probability 1/2 per split, and half the common ones with it).
 *
 * Layout (flat typed arrays over all trees; what scoring and the ONNX export read): a node is a
 * leaf when `feature` is -1; an internal node's children are `left` and `left + 1`.
 */
import { Rng } from "../random";
import { averagePathLength } from "./path-length";

export interface IsolationForest {
  numFeatures: number;
  numTrees: number;
  /** ψ: sub-sample rows per tree (min(maxSamples, rows)). */
  sampleSize: number;
  /** Node index of each tree's root. */
  roots: Int32Array;
  /** Split feature; -1 for a leaf. */
  feature: Int32Array;
  /** Split threshold (a float32 value): x <= threshold goes left. */
  threshold: Float32Array;
  /** Left child (the right one is left + 1); -1 for a leaf. */
  left: Int32Array;
  /** 1 when NaN goes left. */
  nanLeft: Uint8Array;
  /** Leaves: depth + c(rows in the leaf), the path length the leaf contributes; 0 otherwise. */
  pathLength: Float64Array;
  /** Sub-sample rows that reached the node. */
  size: Int32Array;
}

export interface IsolationForestParams {
  numTrees: number;
  maxSamples: number;
  seed: number;
}

/** Trains tree by tree: one yield per finished tree (its 1-based count), the forest at the end. */
export function* trainIsolationForestSteps(
  data: Float32Array,
  numRows: number,
  numFeatures: number,
  p: IsolationForestParams,
): Generator<number, IsolationForest, void> {
  if (data.length !== numRows * numFeatures) throw new Error(`matrix of ${data.length} values is not ${numRows} x ${numFeatures}`);
  if (numRows < 1 || numFeatures < 1) throw new Error("isolation forest needs at least one row and one feature");
  const psi = Math.min(p.maxSamples, numRows);
  const maxDepth = Math.ceil(Math.log2(Math.max(psi, 2)));
  const rng = new Rng(p.seed);
  const nodes = new NodeList();
  const roots = new Int32Array(p.numTrees);
  const perm = Int32Array.from({ length: numRows }, (_, i) => i);
  const builder = new TreeBuilder(psi, numFeatures, maxDepth, rng, nodes);
  for (let t = 0; t < p.numTrees; t++) {
    // partial Fisher-Yates: perm[0..psi) is a uniform sample without replacement
    for (let i = 0; i < psi; i++) {
      const j = i + rng.int(numRows - i);
      const tmp = perm[i];
      perm[i] = perm[j];
      perm[j] = tmp;
    }
    builder.load(data, perm);
    roots[t] = builder.build();
    yield t + 1;
  }
  return { numFeatures, numTrees: p.numTrees, sampleSize: psi, roots, ...nodes.finish() };
}

/** Growable node arrays. */
class NodeList {
  private n = 0;
  private cap = 1024;
  feature = new Int32Array(this.cap);
  threshold = new Float32Array(this.cap);
  left = new Int32Array(this.cap);
  nanLeft = new Uint8Array(this.cap);
  pathLength = new Float64Array(this.cap);
  size = new Int32Array(this.cap);

  /** Appends `count` nodes (set later) and returns the first index. */
  alloc(count: number): number {
    while (this.n + count > this.cap) this.grow();
    const at = this.n;
    this.n += count;
    return at;
  }

  private grow(): void {
    this.cap *= 2;
    const resize = <T extends Int32Array | Float32Array | Uint8Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(this.cap);
      b.set(a as never);
      return b;
    };
    this.feature = resize(this.feature, (n) => new Int32Array(n));
    this.threshold = resize(this.threshold, (n) => new Float32Array(n));
    this.left = resize(this.left, (n) => new Int32Array(n));
    this.nanLeft = resize(this.nanLeft, (n) => new Uint8Array(n));
    this.pathLength = resize(this.pathLength, (n) => new Float64Array(n));
    this.size = resize(this.size, (n) => new Int32Array(n));
  }

  finish() {
    const n = this.n;
    return {
      feature: this.feature.slice(0, n),
      threshold: this.threshold.slice(0, n),
      left: this.left.slice(0, n),
      nanLeft: this.nanLeft.slice(0, n),
      pathLength: this.pathLength.slice(0, n),
      size: this.size.slice(0, n),
    };
  }
}

/** Builds one tree over a sub-sample held column-major, so a node's range is a contiguous scan per feature. */
class TreeBuilder {
  private readonly cols: Float32Array;
  private readonly idx: Int32Array;
  private readonly order: Int32Array;

  constructor(
    private readonly psi: number,
    private readonly F: number,
    private readonly maxDepth: number,
    private readonly rng: Rng,
    private readonly nodes: NodeList,
  ) {
    this.cols = new Float32Array(psi * F);
    this.idx = new Int32Array(psi);
    this.order = new Int32Array(F);
  }

  load(data: Float32Array, rows: Int32Array): void {
    const { psi, F, cols } = this;
    for (let i = 0; i < psi; i++) {
      const base = rows[i] * F;
      for (let j = 0; j < F; j++) cols[j * psi + i] = data[base + j];
      this.idx[i] = i;
    }
  }

  /** Builds the loaded sub-sample's tree; returns its root's node index. */
  build(): number {
    const root = this.nodes.alloc(1);
    this.grow(root, 0, this.psi, 0);
    return root;
  }

  private grow(node: number, lo: number, hi: number, depth: number): void {
    const nodes = this.nodes;
    const n = hi - lo;
    nodes.size[node] = n;
    nodes.left[node] = -1;
    const split = depth < this.maxDepth && n > 1 ? this.pickSplit(lo, hi) : null;
    if (!split) {
      nodes.feature[node] = -1;
      nodes.pathLength[node] = depth + averagePathLength(n);
      return;
    }
    const mid = this.partition(lo, hi, split.feature, split.threshold, split.nanLeft);
    const left = nodes.alloc(2);
    // read back after alloc: growing replaces the arrays
    nodes.feature[node] = split.feature;
    nodes.threshold[node] = split.threshold;
    nodes.nanLeft[node] = split.nanLeft ? 1 : 0;
    nodes.left[node] = left;
    this.grow(left, lo, mid, depth + 1);
    this.grow(left + 1, mid, hi, depth + 1);
  }

  /**
   * A random feature with a non-missing range in the node (features drawn without replacement
   * until one varies; null when none does), a threshold in [min, max) and the side of NaN.
   */
  private pickSplit(lo: number, hi: number): { feature: number; threshold: number; nanLeft: boolean } | null {
    const { F, psi, cols, idx, order, rng } = this;
    for (let j = 0; j < F; j++) order[j] = j;
    for (let remaining = F; remaining > 0; remaining--) {
      const k = rng.int(remaining);
      const f = order[k];
      order[k] = order[remaining - 1];
      order[remaining - 1] = f;
      const col = f * psi;
      let min = Infinity;
      let max = -Infinity;
      for (let i = lo; i < hi; i++) {
        const x = cols[col + idx[i]];
        if (x < min) min = x;
        if (x > max) max = x;
      }
      if (!(min < max)) continue; // constant, or all missing
      let t = Math.fround(min + rng.next() * (max - min));
      if (t >= max) t = float32Below(max);
      let nLeft = 0;
      let nRight = 0;
      for (let i = lo; i < hi; i++) {
        const x = cols[col + idx[i]];
        if (x <= t) nLeft++;
        else if (x === x) nRight++;
      }
      return { feature: f, threshold: t, nanLeft: nLeft >= nRight };
    }
    return null;
  }

  /** Reorders idx[lo..hi) so the rows going left come first; returns the boundary. */
  private partition(lo: number, hi: number, f: number, t: number, nanLeft: boolean): number {
    const { cols, idx, psi } = this;
    const col = f * psi;
    let a = lo;
    let b = hi - 1;
    while (a <= b) {
      const x = cols[col + idx[a]];
      if (x <= t || (nanLeft && x !== x)) a++;
      else {
        const tmp = idx[a];
        idx[a] = idx[b];
        idx[b] = tmp;
        b--;
      }
    }
    return a;
  }
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The largest float32 strictly below a finite float32 `x`. */
function float32Below(x: number): number {
  if (x === 0) return -1.401298464324817e-45;
  f32[0] = x;
  u32[0] += x > 0 ? -1 : 1;
  return f32[0];
}
