/**
 * Leaf-wise tree growth on binned rows: always split the leaf with the largest gain, build the
 * histogram of the smaller child only and get the larger one by subtraction, partition a
 * row-index array in place. All buffers are allocated once per training run. With threads
 * (./parallel-grow) the large steps are spread over them, the small ones stay on this thread.
 */

import type { ParallelExecutor } from "../parallel";
import { binCount, type FeatureBins } from "./bins";
import { buildHistogram, buildHistogramUnitHess, buildRootHistogram, countBins, countsToHess, subtractHistogram, zeroHistogram } from "./histogram";
import { emptyTree, type Tree } from "./model";
import { type FindLeaf, ParallelGrow } from "./parallel-grow";
import { findBestSplit, type SplitParams, SplitSearch } from "./split";

export interface GrowParams extends SplitParams {
  numLeaves: number;
  /** <= 0: unlimited. */
  maxDepth: number;
  learningRate: number;
}

export class TreeGrower {
  readonly F: number;
  readonly n: number;
  readonly nb: Int32Array;
  readonly off3: Int32Array;
  readonly isCat: Uint8Array;
  private readonly pool: Float64Array[] = [];
  private readonly par: ParallelGrow | null;
  /** The threads when the tree being grown uses them, and its number of selected features. */
  private treePar: ParallelGrow | null = null;
  private treeSel = 0;
  /** Row indices grouped by leaf: leaf l owns rowIdx[leafStart[l] .. + leafCount[l]). */
  readonly rowIdx: Int32Array;
  private readonly scratch: Int32Array;
  readonly leafStart: Int32Array;
  readonly leafCount: Int32Array;
  private readonly leafHist: Int32Array;
  private readonly leafG: Float64Array;
  private readonly leafH: Float64Array;
  private readonly leafDepth: Int32Array;
  private readonly leafParent: Int32Array;
  private readonly leafIsLeft: Uint8Array;
  private readonly search: SplitSearch;
  /** goLeft lookup per internal node of the last tree: nodeTable[node * 256 + bin]. */
  readonly nodeTable: Uint8Array;
  readonly nodeFeature: Int32Array;
  /** Rows per (feature, bin) over all rows, for the root without bagging; built on first use. */
  private rootCounts: Float64Array | null = null;
  numLeaves = 0;
  numNodes = 0;

  constructor(
    readonly bins: Uint8Array,
    numRows: number,
    readonly featureBins: FeatureBins[],
    readonly p: GrowParams,
    /** Threads, and the training's gradients in their shared memory (bins must be shared too). */
    parallel?: { executor: ParallelExecutor; grad: Float64Array; hess: Float64Array },
  ) {
    const F = (this.F = featureBins.length);
    this.n = numRows;
    this.nb = Int32Array.from(featureBins, binCount);
    this.off3 = new Int32Array(F);
    let total = 0;
    for (let f = 0; f < F; f++) {
      this.off3[f] = total * 3;
      total += this.nb[f];
    }
    this.isCat = Uint8Array.from(featureBins, (b) => (b.kind === "categorical" ? 1 : 0));
    const L = Math.max(2, p.numLeaves);
    if (parallel) {
      const counts = countBins(bins, F, this.off3, numRows, total * 3);
      const { executor, grad, hess } = parallel;
      const base = { F, n: numRows, bins, off3: this.off3, nb: this.nb, isCat: this.isCat, split: p, grad, hess };
      this.par = new ParallelGrow(executor, base, L, total * 3, counts);
      for (let i = 0; i < L; i++) this.pool.push(this.par.hist(i));
      this.rootCounts = this.par.state.rootCounts;
      this.rowIdx = this.par.state.rowIdx;
    } else {
      this.par = null;
      for (let i = 0; i < L; i++) this.pool.push(new Float64Array(total * 3));
      this.rowIdx = new Int32Array(numRows);
    }
    this.scratch = new Int32Array(numRows);
    this.leafStart = new Int32Array(L);
    this.leafCount = new Int32Array(L);
    this.leafHist = new Int32Array(L);
    this.leafG = new Float64Array(L);
    this.leafH = new Float64Array(L);
    this.leafDepth = new Int32Array(L);
    this.leafParent = new Int32Array(L);
    this.leafIsLeft = new Uint8Array(L);
    this.search = new SplitSearch(L, p);
    this.nodeTable = new Uint8Array(L * 256);
    this.nodeFeature = new Int32Array(L);
  }

  /**
   * Grow one tree on rows `bag` (null = all rows) with the given gradients, over the selected
   * features. Returns the tree; leaf ranges stay readable until the next call.
   */
  grow(grad: Float64Array, hess: Float64Array, unitHess: boolean, bag: Int32Array | null, sel: Int32Array, nSel: number): Tree {
    const p = this.p;
    const m = bag ? bag.length : this.n;
    if (bag) this.rowIdx.set(bag);
    else for (let i = 0; i < m; i++) this.rowIdx[i] = i;
    const tree = emptyTree();
    this.numLeaves = 1;
    this.numNodes = 0;
    this.leafStart[0] = 0;
    this.leafCount[0] = m;
    this.leafDepth[0] = 0;
    this.leafParent[0] = -1;
    this.leafHist[0] = 0;
    let nextHist = 1;
    const par = this.par?.worth(m, nSel) ? this.par : null;
    if (par) par.startTree(sel, nSel, grad, unitHess);
    this.treePar = par;
    this.treeSel = nSel;
    if (p.numLeaves > 1 && this.canSplit(0) && nSel > 0) {
      if (par) par.buildRoot(bag ? m : null);
      else if (bag) this.build(0, grad, hess, unitHess, sel, nSel);
      else this.buildRoot(grad, hess, unitHess, sel, nSel);
      // root sums from the histogram of any built feature (saves a pass over the rows)
      const hist = this.pool[0];
      let G = 0;
      let H = 0;
      for (let idx = this.off3[sel[0]], e = idx + this.nb[sel[0]] * 3; idx < e; idx += 3) {
        G += hist[idx];
        H += hist[idx + 1];
      }
      this.leafG[0] = G;
      this.leafH[0] = H;
      if (par) par.step(null, -1, [this.findLeaf(0)], this.search);
      else this.findSplit(0, sel, nSel);
    } else {
      let G = 0;
      let H = 0;
      for (let i = 0; i < m; i++) {
        const r = this.rowIdx[i];
        G += grad[r];
        H += hess[r];
      }
      this.leafG[0] = G;
      this.leafH[0] = H;
      this.search.gain[0] = -Infinity;
    }

    const gainArr = this.search.gain;
    while (this.numLeaves < p.numLeaves) {
      let best = -1;
      let bestGain = 0;
      for (let l = 0; l < this.numLeaves; l++) {
        if (gainArr[l] > bestGain) {
          bestGain = gainArr[l];
          best = l;
        }
      }
      if (best < 0) break;
      const l = best;
      const r = this.splitLeaf(l, tree);
      if (this.numLeaves >= p.numLeaves) break;
      const splitL = this.canSplit(l);
      const splitR = this.canSplit(r);
      gainArr[l] = -Infinity;
      gainArr[r] = -Infinity;
      if (!splitL && !splitR) continue;
      const small = this.leafCount[l] <= this.leafCount[r] ? l : r;
      const large = small === l ? r : l;
      const parentHist = this.leafHist[l];
      this.leafHist[small] = nextHist++;
      this.leafHist[large] = parentHist;
      if (par?.worth(this.leafCount[small], nSel)) {
        const s = this.leafStart[small];
        const build = { hist: this.leafHist[small], start: s, end: s + this.leafCount[small] };
        const find: FindLeaf[] = [];
        if (splitL) find.push(this.findLeaf(l));
        if (splitR) find.push(this.findLeaf(r));
        par.step(build, (small === l ? splitR : splitL) ? parentHist : -1, find, this.search);
        continue;
      }
      this.build(small, grad, hess, unitHess, sel, nSel);
      if (small === l ? splitR : splitL) {
        subtractHistogram(this.pool[parentHist], this.pool[this.leafHist[small]], this.off3, this.nb, sel, nSel);
      }
      if (splitL) this.findSplit(l, sel, nSel);
      if (splitR) this.findSplit(r, sel, nSel);
    }
    for (let l = 0; l < this.numLeaves; l++) {
      tree.leafValue.push(Math.fround((-this.leafG[l] / (this.leafH[l] + p.lambdaL2)) * p.learningRate));
      tree.leafCover.push(this.leafH[l]);
    }
    return tree;
  }

  /** Lets the threads go (a training calls it once done with the grower). */
  close(): void {
    this.par?.close();
  }

  private findLeaf(l: number): FindLeaf {
    return { leaf: l, hist: this.leafHist[l], G: this.leafG[l], H: this.leafH[l], C: this.leafCount[l] };
  }

  private canSplit(l: number): boolean {
    const p = this.p;
    return this.leafCount[l] >= 2 * p.minDataInLeaf && (p.maxDepth <= 0 || this.leafDepth[l] < p.maxDepth);
  }

  private build(l: number, grad: Float64Array, hess: Float64Array, unitHess: boolean, sel: Int32Array, nSel: number): void {
    const hist = this.pool[this.leafHist[l]];
    zeroHistogram(hist, this.off3, this.nb, sel, nSel);
    const s = this.leafStart[l];
    const e = s + this.leafCount[l];
    if (unitHess) {
      buildHistogramUnitHess(hist, this.bins, this.F, this.off3, sel, nSel, nSel === this.F, this.rowIdx, s, e, grad);
      countsToHess(hist, this.off3, this.nb, sel, nSel);
    } else {
      buildHistogram(hist, this.bins, this.F, this.off3, sel, nSel, nSel === this.F, this.rowIdx, s, e, grad, hess);
    }
  }

  /** The root's histogram over every row (no bagging): see buildRootHistogram. */
  private buildRoot(grad: Float64Array, hess: Float64Array, unitHess: boolean, sel: Int32Array, nSel: number): void {
    const hist = this.pool[0];
    this.rootCounts ??= countBins(this.bins, this.F, this.off3, this.n, hist.length);
    buildRootHistogram(
      hist,
      this.bins,
      this.F,
      this.off3,
      this.nb,
      sel,
      nSel,
      nSel === this.F,
      this.n,
      grad,
      unitHess ? null : hess,
      this.rootCounts,
    );
    if (unitHess) countsToHess(hist, this.off3, this.nb, sel, nSel);
  }

  private findSplit(l: number, sel: Int32Array, nSel: number): void {
    findBestSplit(
      this.search,
      l,
      this.pool[this.leafHist[l]],
      this.off3,
      this.nb,
      this.isCat,
      sel,
      nSel,
      this.leafG[l],
      this.leafH[l],
      this.leafCount[l],
    );
  }

  /** Apply leaf l's best split: new node, partition, children l (left) and a new leaf (right). */
  private splitLeaf(l: number, tree: Tree): number {
    const s = this.search;
    const f = s.feature[l];
    const node = this.numNodes++;
    const table = this.nodeTable.subarray(node * 256, node * 256 + 256);
    s.fillTable(l, table);
    this.nodeFeature[node] = f;
    const fb = this.featureBins[f];
    tree.splitFeature.push(f);
    tree.defaultLeft.push(table[0]);
    tree.internalCover.push(this.leafH[l]);
    tree.gain.push(s.gain[l]);
    if (fb.kind === "categorical") {
      tree.isCategorical.push(1);
      tree.threshold.push(0);
      const cats: number[] = [];
      for (let b = 1; b <= fb.codes.length; b++) if (table[b]) cats.push(fb.codes[b - 1]);
      tree.leftCategories.push(cats);
    } else {
      tree.isCategorical.push(0);
      const t = s.threshold[l];
      // t == number of value bins: "everything present goes left" (only missing goes right)
      tree.threshold.push(t - 1 < fb.upper.length ? fb.upper[t - 1] : 3.4028234663852886e38);
      tree.leftCategories.push([]);
    }
    const r = this.numLeaves++;
    tree.left.push(~l);
    tree.right.push(~r);
    const parent = this.leafParent[l];
    if (parent >= 0) {
      if (this.leafIsLeft[l]) tree.left[parent] = node;
      else tree.right[parent] = node;
    }
    // stable in-place partition of the leaf's rows
    const start = this.leafStart[l];
    const count = this.leafCount[l];
    const nl = this.treePar?.worth(count, this.treeSel) ? this.treePar.partition(start, count, table, f) : this.partition(start, count, table, f);
    const nr = count - nl;
    const depth = this.leafDepth[l] + 1;
    this.leafStart[r] = start + nl;
    this.leafCount[r] = nr;
    this.leafG[r] = this.leafG[l] - s.leftG[l];
    this.leafH[r] = this.leafH[l] - s.leftH[l];
    this.leafDepth[r] = depth;
    this.leafParent[r] = node;
    this.leafIsLeft[r] = 0;
    this.leafCount[l] = nl;
    this.leafG[l] = s.leftG[l];
    this.leafH[l] = s.leftH[l];
    this.leafDepth[l] = depth;
    this.leafParent[l] = node;
    this.leafIsLeft[l] = 1;
    return r;
  }

  /** Stable in-place partition of rowIdx[start..start+count) by `table` on feature f; returns the left count. */
  private partition(start: number, count: number, table: Uint8Array, f: number): number {
    const rows = this.rowIdx;
    const scratch = this.scratch;
    const bins = this.bins;
    const F = this.F;
    let nl = 0;
    let nr = 0;
    // branchless: write the row to both places, advance one of the two counters
    // (rows[start + nl] was already read: nl <= i - start)
    for (let i = start, e = start + count; i < e; i++) {
      const row = rows[i];
      const goLeft = table[bins[row * F + f]];
      rows[start + nl] = row;
      scratch[nr] = row;
      nl += goLeft;
      nr += 1 - goLeft;
    }
    for (let i = 0, o = start + nl; i < nr; i++) rows[o + i] = scratch[i];
    return nl;
  }
}
