/**
 * The tree grower's work spread over threads (../parallel), by features: each task takes a
 * contiguous share of the selected features and, for one step of the growth, builds a leaf's
 * histogram over them, subtracts it from the parent's (the sibling's histogram), and finds the
 * best split of up to two leaves among them; the caller keeps the best of the shares, ties going
 * to the lower share as in one thread's scan over the features. Per feature a histogram sums the
 * same rows in the same order as one thread does, so the trees are bit-identical for any number
 * of threads (test/ml/gbdt-threads.test.ts).
 */

import { GBDT_PARALLEL_MIN_CELLS } from "../../core/limits";
import { type ParallelExecutor, type ParallelSession, sharedBuffer } from "../parallel";
import { buildHistogram, buildHistogramUnitHess, buildRootHistogram, countsToHess, subtractHistogram, zeroHistogram } from "./histogram";
import { findBestSplit, type SplitParams, SplitSearch } from "./split";

/** What every thread sees (typed arrays over shared memory, and constants). */
export interface GrowState {
  F: number;
  n: number;
  bins: Uint8Array;
  off3: Int32Array;
  nb: Int32Array;
  isCat: Uint8Array;
  split: SplitParams;
  grad: Float64Array;
  hess: Float64Array;
  rowIdx: Int32Array;
  /** The grower's histograms, one after the other (histSize each). */
  hists: Float64Array;
  histSize: number;
  rootCounts: Float64Array;
  /** The selected features of the tree being grown. */
  sel: Int32Array;
  /** What the next run does (the I_* slots) and its leaves' sums (G, H, count per slot). */
  ctrl: Int32Array;
  sums: Float64Array;
  /** Per task and slot: the share's best split (OUT_F and OUT_I values, 256 category bins). */
  outF: Float64Array;
  outI: Int32Array;
  outCat: Uint8Array;
  /** A split's partition: its goLeft table per bin, the row shares' left counts and destinations. */
  table: Uint8Array;
  partLeft: Int32Array;
  partDest: Int32Array;
  scratch: Int32Array;
}

// ctrl slots
const I_OP = 0;
const I_NSEL = 1;
const I_TASKS = 2;
const I_UNIT_HESS = 3;
const I_GRAD_OFF = 4;
const I_BUILD_HIST = 5;
const I_START = 6;
const I_END = 7;
const I_PARENT_HIST = 8;
const I_FIND_HIST = 9; // and 10: the histograms of slots 0 and 1
const I_FEATURE = 11; // the split feature of a partition
const CTRL_LEN = 12;
// operations (bits of ctrl[I_OP]), done in this order
const OP_BUILD = 1; // rows rowIdx[start..end) into hist BUILD_HIST
const OP_BUILD_ROOT = 2; // every row, with the root's counts (no bagging)
const OP_SUBTRACT = 4; // hist PARENT_HIST -= hist BUILD_HIST
const OP_FIND_0 = 8;
const OP_FIND_1 = 16;
// a partition of rowIdx[start..end) by feature FEATURE's table, in two runs over row shares
const OP_PARTITION = 32; // each share into scratch: its left rows forwards, its right rows backwards
const OP_PLACE = 64; // each share from scratch to its place in rowIdx (partDest)
// outputs per (task, slot)
const OUT_F = 3; // score, leftG, leftH
const OUT_I = 5; // feature, threshold, defaultLeft, isCat, catCount

/** Whether a training of n rows × F features is worth threads at all. */
export function growsInParallel(executor: ParallelExecutor | undefined, n: number, F: number): executor is ParallelExecutor {
  return executor !== undefined && executor.threads > 1 && n * F >= GBDT_PARALLEL_MIN_CELLS;
}

/** One thread's runner of tasks (the executor's kernel "gbdt-grow"). */
export function gbdtGrowKernel(state: object): (task: number) => void {
  const s = state as GrowState;
  const search = new SplitSearch(2, s.split);
  const { F, n, bins, off3, nb, isCat, ctrl, sums } = s;
  const hist = (i: number) => s.hists.subarray(i * s.histSize, (i + 1) * s.histSize);
  return (task) => {
    const op = ctrl[I_OP];
    if (op & (OP_PARTITION | OP_PLACE)) {
      partition(s, task, op);
      return;
    }
    const nSelAll = ctrl[I_NSEL];
    const tasks = ctrl[I_TASKS];
    const j0 = Math.floor((task * nSelAll) / tasks);
    const j1 = Math.floor(((task + 1) * nSelAll) / tasks);
    const sel = s.sel.subarray(j0, j1);
    const nSel = j1 - j0;
    const blocked = nSelAll === F;
    const unit = ctrl[I_UNIT_HESS] === 1;
    const off = ctrl[I_GRAD_OFF];
    const grad = s.grad.subarray(off, off + n);
    const hess = s.hess.subarray(off, off + n);
    if (op & (OP_BUILD | OP_BUILD_ROOT)) {
      const h = hist(ctrl[I_BUILD_HIST]);
      if (op & OP_BUILD_ROOT) {
        buildRootHistogram(h, bins, F, off3, nb, sel, nSel, blocked, n, grad, unit ? null : hess, s.rootCounts);
      } else {
        zeroHistogram(h, off3, nb, sel, nSel);
        if (unit) buildHistogramUnitHess(h, bins, F, off3, sel, nSel, blocked, s.rowIdx, ctrl[I_START], ctrl[I_END], grad);
        else buildHistogram(h, bins, F, off3, sel, nSel, blocked, s.rowIdx, ctrl[I_START], ctrl[I_END], grad, hess);
      }
      if (unit) countsToHess(h, off3, nb, sel, nSel);
    }
    if (op & OP_SUBTRACT) subtractHistogram(hist(ctrl[I_PARENT_HIST]), hist(ctrl[I_BUILD_HIST]), off3, nb, sel, nSel);
    for (let slot = 0; slot < 2; slot++) {
      if (!(op & (slot === 0 ? OP_FIND_0 : OP_FIND_1))) continue;
      const h = hist(ctrl[I_FIND_HIST + slot]);
      findBestSplit(search, slot, h, off3, nb, isCat, sel, nSel, sums[slot * 3], sums[slot * 3 + 1], sums[slot * 3 + 2]);
      const o = task * 2 + slot;
      s.outF[o * OUT_F] = search.score[slot];
      s.outF[o * OUT_F + 1] = search.leftG[slot];
      s.outF[o * OUT_F + 2] = search.leftH[slot];
      s.outI[o * OUT_I] = search.feature[slot];
      s.outI[o * OUT_I + 1] = search.threshold[slot];
      s.outI[o * OUT_I + 2] = search.defaultLeft[slot];
      s.outI[o * OUT_I + 3] = search.isCat[slot];
      s.outI[o * OUT_I + 4] = search.catCount[slot];
      s.outCat.set(search.catBins.subarray(slot * 256, slot * 256 + 256), o * 256);
    }
  };
}

/** One row share of a partition (the stable partition of one thread, per share). */
function partition(s: GrowState, task: number, op: number): void {
  const { ctrl, rowIdx: rows, scratch } = s;
  const start = ctrl[I_START];
  const count = ctrl[I_END] - start;
  const tasks = ctrl[I_TASKS];
  const a = start + Math.floor((task * count) / tasks);
  const b = start + Math.floor(((task + 1) * count) / tasks);
  if (op & OP_PARTITION) {
    const { bins, F, table } = s;
    const f = ctrl[I_FEATURE];
    let nl = 0;
    let nr = 0;
    // branchless: write both places, advance one (the other place is the next one of its side)
    for (let i = a; i < b; i++) {
      const row = rows[i];
      const goLeft = table[bins[row * F + f]];
      scratch[a + nl] = row;
      scratch[b - 1 - nr] = row;
      nl += goLeft;
      nr += 1 - goLeft;
    }
    s.partLeft[task] = nl;
    return;
  }
  const nl = s.partLeft[task];
  rows.set(scratch.subarray(a, a + nl), s.partDest[task * 2]);
  for (let i = b - 1, o = s.partDest[task * 2 + 1]; i >= a + nl; i--, o++) rows[o] = scratch[i];
}

/** A leaf to find the best split of: its histogram and sums, and where the result goes. */
export interface FindLeaf {
  leaf: number;
  hist: number;
  G: number;
  H: number;
  C: number;
}

/** The grower's side: shared buffers, the session, one call per step of the growth. */
export class ParallelGrow {
  readonly state: GrowState;
  private readonly session: ParallelSession;
  private readonly maxTasks: number;

  constructor(
    executor: ParallelExecutor,
    base: Pick<GrowState, "F" | "n" | "bins" | "off3" | "nb" | "isCat" | "split" | "grad" | "hess">,
    numHists: number,
    histSize: number,
    rootCounts: Float64Array,
  ) {
    this.maxTasks = Math.max(1, Math.min(base.F, executor.threads));
    const T = this.maxTasks * 2;
    this.state = {
      ...base,
      rowIdx: sharedInt32(base.n),
      hists: sharedFloat64(numHists * histSize),
      histSize,
      rootCounts: toShared(rootCounts),
      sel: sharedInt32(base.F),
      ctrl: sharedInt32(CTRL_LEN),
      sums: sharedFloat64(6),
      outF: sharedFloat64(T * OUT_F),
      outI: sharedInt32(T * OUT_I),
      outCat: new Uint8Array(sharedBuffer(T * 256)),
      table: new Uint8Array(sharedBuffer(256)),
      partLeft: sharedInt32(T),
      partDest: sharedInt32(2 * T),
      scratch: sharedInt32(base.n),
    };
    this.session = executor.open("gbdt-grow", this.state);
  }

  /** Whether a step over `rows` rows of the selected features is worth the threads. */
  worth(rows: number, nSel: number): boolean {
    return rows * nSel >= GBDT_PARALLEL_MIN_CELLS;
  }

  hist(i: number): Float64Array {
    return this.state.hists.subarray(i * this.state.histSize, (i + 1) * this.state.histSize);
  }

  /** The tree's selected features and gradients (a view into the shared `grad`, `hess`). */
  startTree(sel: Int32Array, nSel: number, grad: Float64Array, unitHess: boolean): void {
    if (grad.buffer !== this.state.grad.buffer) throw new Error("the gradients are not the grower's shared ones");
    this.state.sel.set(sel.subarray(0, nSel));
    const c = this.state.ctrl;
    c[I_NSEL] = nSel;
    c[I_TASKS] = Math.min(nSel, this.maxTasks);
    c[I_UNIT_HESS] = unitHess ? 1 : 0;
    c[I_GRAD_OFF] = (grad.byteOffset - this.state.grad.byteOffset) / 8;
  }

  /** The root's histogram into hist 0: over every row (`rows` null) or rowIdx[0..rows). */
  buildRoot(rows: number | null): void {
    const c = this.state.ctrl;
    c[I_OP] = rows === null ? OP_BUILD_ROOT : OP_BUILD;
    c[I_BUILD_HIST] = 0;
    c[I_START] = 0;
    c[I_END] = rows ?? 0;
    this.session.run(c[I_TASKS]);
  }

  /**
   * One step: build hist `build` over rowIdx[start..end), subtract it from hist `parent` when
   * `parent` >= 0, then find the best splits of `find` (0 to 2 leaves) into `search`.
   */
  step(build: { hist: number; start: number; end: number } | null, parent: number, find: FindLeaf[], search: SplitSearch): void {
    const c = this.state.ctrl;
    let op = 0;
    if (build) {
      op |= OP_BUILD;
      c[I_BUILD_HIST] = build.hist;
      c[I_START] = build.start;
      c[I_END] = build.end;
      if (parent >= 0) {
        op |= OP_SUBTRACT;
        c[I_PARENT_HIST] = parent;
      }
    }
    find.forEach((f, slot) => {
      op |= slot === 0 ? OP_FIND_0 : OP_FIND_1;
      c[I_FIND_HIST + slot] = f.hist;
      this.state.sums.set([f.G, f.H, f.C], slot * 3);
    });
    c[I_OP] = op;
    const tasks = c[I_TASKS];
    this.session.run(tasks);
    find.forEach((f, slot) => this.merge(slot, f, search, tasks));
  }

  /**
   * Stable partition of rowIdx[start..start+count) (left rows first, each side in its order, as
   * one thread's) by `table` on feature `f`; returns the left count.
   */
  partition(start: number, count: number, table: Uint8Array, f: number): number {
    const c = this.state.ctrl;
    const tasks = this.maxTasks;
    this.state.table.set(table);
    c[I_OP] = OP_PARTITION;
    c[I_FEATURE] = f;
    c[I_START] = start;
    c[I_END] = start + count;
    const saved = c[I_TASKS];
    c[I_TASKS] = tasks;
    this.session.run(tasks);
    let left = 0;
    for (let t = 0; t < tasks; t++) left += this.state.partLeft[t];
    for (let t = 0, l = start, r = start + left; t < tasks; t++) {
      const size = Math.floor(((t + 1) * count) / tasks) - Math.floor((t * count) / tasks);
      this.state.partDest[t * 2] = l;
      this.state.partDest[t * 2 + 1] = r;
      l += this.state.partLeft[t];
      r += size - this.state.partLeft[t];
    }
    c[I_OP] = OP_PLACE;
    this.session.run(tasks);
    c[I_TASKS] = saved;
    return left;
  }

  /** The best of the tasks' splits for a slot, into search at the leaf (as findBestSplit writes it). */
  private merge(slot: number, f: FindLeaf, search: SplitSearch, tasks: number): void {
    const { outF, outI, outCat } = this.state;
    let best = Number.NEGATIVE_INFINITY;
    let bestTask = -1;
    for (let t = 0; t < tasks; t++) {
      const score = outF[(t * 2 + slot) * OUT_F];
      if (score > best) {
        best = score;
        bestTask = t;
      }
    }
    const l = f.leaf;
    search.score[l] = best;
    if (bestTask < 0) {
      search.gain[l] = Number.NEGATIVE_INFINITY;
      return;
    }
    const o = bestTask * 2 + slot;
    search.gain[l] = best - (f.G * f.G) / (f.H + search.p.lambdaL2);
    search.leftG[l] = outF[o * OUT_F + 1];
    search.leftH[l] = outF[o * OUT_F + 2];
    search.feature[l] = outI[o * OUT_I];
    search.threshold[l] = outI[o * OUT_I + 1];
    search.defaultLeft[l] = outI[o * OUT_I + 2];
    search.isCat[l] = outI[o * OUT_I + 3];
    search.catCount[l] = outI[o * OUT_I + 4];
    if (search.isCat[l]) search.catBins.set(outCat.subarray(o * 256, o * 256 + search.catCount[l]), l * 256);
  }

  close(): void {
    this.session.close();
  }
}

export function sharedFloat64(length: number): Float64Array {
  return new Float64Array(sharedBuffer(length * 8));
}

function sharedInt32(length: number): Int32Array {
  return new Int32Array(sharedBuffer(length * 4));
}

/** A copy in shared memory (for the threads) of a typed array. */
export function toShared<T extends Float64Array | Uint8Array>(a: T): T {
  const copy = new (a.constructor as new (b: ArrayBuffer | SharedArrayBuffer) => T)(sharedBuffer(a.byteLength));
  copy.set(a);
  return copy;
}
