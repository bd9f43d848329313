/**
 * The k-means passes over every row, as tasks over fixed row ranges: the seeding's update once a
 * center is chosen (./seeding) and Hamerly's assignment (./hamerly). On a large table with the
 * host's threads (../parallel) the tasks run on them; otherwise on this thread, through the same
 * code.
 *
 * Why the result is the same bits for any number of threads: a task reads shared inputs and
 * writes only its own rows (labels, bounds) and its own counters; what crosses rows is done here,
 * after the run, in row order: the moves of rows between clusters are applied to the cluster sums
 * task after task (the one-thread loop's order), the counts are integers, and the seeding's
 * running sums are taken by the caller once the pass is over.
 */
import { KMEANS_PARALLEL_MIN_CELLS } from "../../core/limits";
import { type ParallelExecutor, type ParallelSession, sharedBuffer } from "../parallel";
import { type ClusterSums, dist2 } from "./centers";
import { rowToCenters } from "./row-to-centers";

/** What one pass is about: written into the shared `params` before each run. */
const PASS = 0;
const FULL = 1;
const PENDING = 2;
const TOP = 3;
const FIRST = 4;
const SECOND = 5;
const MEASURE_FIRST = 6;
const CENTER = 7;
const PARAMS = 8;
const PASS_SEED = 1;
const PASS_ASSIGN = 2;
/** Per task: labels changed, loose bounds met, loose bounds a measure alone settled. */
const COUNTS = 3;
/** Rows per task at least (fewer tasks than this would hand out cost more than they balance). */
const MIN_TASK_ROWS = 8192;
/** Tasks per thread: a shared machine's threads run at uneven speeds, smaller tasks even that out. */
const TASKS_PER_THREAD = 4;

/**
 * The per-row arrays of one restart. Seeding: labels = nearest seed, upper = squared distance to
 * it, lower = a bound on the squared distance to the others. Hamerly: labels, and the bounds
 * (distances, not squared). `exact` (1 byte a row) and `moves` (2 words a row) are Hamerly's.
 */
export interface RowArrays {
  labels: Int32Array;
  upper: Float64Array;
  lower: Float64Array;
  exact?: Uint8Array;
  moves?: Int32Array;
}

/** What every thread sees: typed arrays (shared memory when on threads) and constants. */
interface RowPassState extends RowArrays {
  X: Float64Array;
  n: number;
  d: number;
  k: number;
  tasks: number;
  params: Float64Array;
  /** [k x d] the centers the assignment measures against. */
  centers: Float64Array;
  /** Per center: half the distance to its nearest other center; how far it moved. */
  half: Float64Array;
  moved: Float64Array;
  /** The seeding's new center [d], and the squared distances (and distances) of the earlier ones to it [k]. */
  cand: Float64Array;
  toCenter: Float64Array;
  toCenterRoot: Float64Array;
  counts: Int32Array;
}

/** The bounds' state an assignment starts from (./hamerly's State). */
export interface AssignParams {
  full: boolean;
  pending: boolean;
  top: number;
  first: number;
  second: number;
  measureFirst: boolean;
}

/** Counts of one assignment, summed over the rows. */
export interface AssignCounts {
  changed: number;
  loose: number;
  keep: number;
}

/** Whether a fit of n rows x d columns into k clusters goes on the threads. */
export function passesInParallel(executor: ParallelExecutor | undefined, n: number, d: number, k: number): executor is ParallelExecutor {
  return executor !== undefined && executor.threads > 1 && n * d * k >= KMEANS_PARALLEL_MIN_CELLS;
}

export class RowPasses {
  readonly X: Float64Array;
  private readonly state: RowPassState;
  private readonly executor: ParallelExecutor | undefined;
  private session: ParallelSession | null = null;
  private runner: ((task: number) => void) | null = null;

  /** `executor`: run on its threads (the caller checked passesInParallel); X is then copied to shared memory. */
  constructor(X: Float64Array, n: number, d: number, k: number, executor?: ParallelExecutor) {
    this.executor = executor;
    const tasks = executor ? Math.max(1, Math.min(executor.threads * TASKS_PER_THREAD, Math.floor(n / MIN_TASK_ROWS))) : 1;
    const f64 = (length: number) => this.float64(length);
    this.X = executor ? copyShared(X) : X;
    const none = new Int32Array(0);
    this.state = {
      X: this.X,
      n,
      d,
      k,
      tasks,
      labels: none,
      upper: new Float64Array(0),
      lower: new Float64Array(0),
      params: f64(PARAMS),
      centers: f64(k * d),
      half: f64(k),
      moved: f64(k),
      cand: f64(d),
      toCenter: f64(k),
      toCenterRoot: f64(k),
      counts: new Int32Array(this.buffer(tasks * COUNTS * 4)),
    };
  }

  get half(): Float64Array {
    return this.state.half;
  }

  get moved(): Float64Array {
    return this.state.moved;
  }

  /** Row-sized arrays the passes can work on (shared memory when on threads). */
  float64(length: number): Float64Array {
    return new Float64Array(this.buffer(length * 8));
  }

  int32(length: number): Int32Array {
    return new Int32Array(this.buffer(length * 4));
  }

  uint8(length: number): Uint8Array {
    return new Uint8Array(this.buffer(length));
  }

  /** The arrays the next passes work on (a restart's); made by this object's allocators when on threads. */
  use(arrays: RowArrays): void {
    const s = this.state;
    if (s.labels === arrays.labels && s.upper === arrays.upper && s.lower === arrays.lower && s.exact === arrays.exact && s.moves === arrays.moves)
      return;
    Object.assign(s, arrays);
    this.session?.close();
    this.session = this.executor ? this.executor.open("kmeans-rows", s) : null;
    this.runner = this.session ? null : rowPassKernel(s);
  }

  /**
   * The seeding's update for its new center `c` (values `cand`; `toCenter`: squared distances of
   * centers 0..c-1 to it, `toCenterRoot` their roots): every row it is nearer to moves to it, the
   * others tighten their lower bound.
   */
  seed(c: number, cand: Float64Array, toCenter: Float64Array, toCenterRoot: Float64Array): void {
    const s = this.state;
    s.params[PASS] = PASS_SEED;
    s.params[CENTER] = c;
    s.cand.set(cand);
    s.toCenter.set(toCenter);
    s.toCenterRoot.set(toCenterRoot);
    this.run();
  }

  /**
   * Hamerly's assignment to `centers` (half and moved: this object's, filled by the caller);
   * the rows that change cluster are moved in `sums`, in row order.
   */
  assign(centers: Float64Array, p: AssignParams, sums: ClusterSums | null): AssignCounts {
    const s = this.state;
    const q = s.params;
    q[PASS] = PASS_ASSIGN;
    q[FULL] = p.full ? 1 : 0;
    q[PENDING] = p.pending ? 1 : 0;
    q[TOP] = p.top;
    q[FIRST] = p.first;
    q[SECOND] = p.second;
    q[MEASURE_FIRST] = p.measureFirst ? 1 : 0;
    s.centers.set(centers);
    this.run();
    const out = { changed: 0, loose: 0, keep: 0 };
    const { counts, moves, labels } = s;
    for (let t = 0; t < s.tasks; t++) {
      const changed = counts[t * COUNTS];
      out.changed += changed;
      out.loose += counts[t * COUNTS + 1];
      out.keep += counts[t * COUNTS + 2];
      if (!sums) continue;
      for (let m = 2 * taskStart(t, s), end = m + 2 * changed; m < end; m += 2) sums.move(moves![m], moves![m + 1], labels[moves![m]]);
    }
    return out;
  }

  close(): void {
    this.session?.close();
    this.session = null;
  }

  private run(): void {
    const { tasks } = this.state;
    if (this.session) this.session.run(tasks);
    else for (let t = 0; t < tasks; t++) this.runner!(t);
  }

  private buffer(bytes: number): ArrayBuffer | SharedArrayBuffer {
    return this.executor ? sharedBuffer(bytes) : new ArrayBuffer(bytes);
  }
}

function copyShared(X: Float64Array): Float64Array {
  const copy = new Float64Array(sharedBuffer(X.byteLength));
  copy.set(X);
  return copy;
}

function taskStart(task: number, s: { n: number; tasks: number }): number {
  return Math.floor((task * s.n) / s.tasks);
}

/** One thread's runner of tasks (the executor's kernel "kmeans-rows"). */
export function rowPassKernel(state: object): (task: number) => void {
  const s = state as RowPassState;
  const toCenters = new Float64Array(s.k);
  return (task) => {
    const from = taskStart(task, s);
    const to = taskStart(task + 1, s);
    if (s.params[PASS] === PASS_SEED) seedRows(s, from, to);
    else assignRows(s, from, to, task, toCenters);
  };
}

/** ./seeding's update of rows [from, to) for its new center. */
function seedRows(s: RowPassState, from: number, to: number): void {
  const { X, d, labels: nearest, upper: closest, lower: second, cand, toCenter, toCenterRoot } = s;
  const c = s.params[CENTER];
  // the winner takes the rows it is closer to than their nearest center so far; the others
  // learn a bound on their distance to it (measured, or |c - a| - |x - a| when skipped)
  for (let i = from; i < to; i++) {
    const cur = closest[i];
    const a = nearest[i];
    if (toCenter[a] < 4 * cur) {
      const e = dist2(X, i, cand, 0, d);
      if (e < cur) {
        second[i] = cur;
        closest[i] = e;
        nearest[i] = c;
      } else if (e < second[i]) second[i] = e;
    } else {
      const gap = toCenterRoot[a] - Math.sqrt(cur);
      if (gap * gap < second[i]) second[i] = gap * gap;
    }
  }
}

/** ./hamerly's assignment of rows [from, to); its moves go to `moves` from row `from` on, in row order. */
function assignRows(s: RowPassState, from: number, to: number, task: number, toCenters: Float64Array): void {
  const { X, d, k, centers, labels, upper, lower, half, moved, params } = s;
  const exact = s.exact!;
  const moves = s.moves!;
  const full = params[FULL] === 1;
  const pending = params[PENDING] === 1;
  const top = params[TOP];
  const first = params[FIRST];
  const second = params[SECOND];
  const measureFirst = params[MEASURE_FIRST] === 1;
  // rows whose upper bound was loose and failed, and those of them a measure alone would have kept
  let loose = 0;
  let keep = 0;
  let changed = 0;
  for (let i = from; i < to; i++) {
    const a = labels[i];
    // the bounds' pending loosening (./hamerly moveBounds) is applied row by row; a full scan replaces them
    if (pending) {
      const ma = moved[a];
      upper[i] += ma;
      if (ma > 0) exact[i] = 0;
      lower[i] -= a === top ? second : first;
    }
    // a loose upper bound that fails is first tightened by measuring the assigned center
    // (Hamerly), unless the last assignment showed that this rarely avoids the scan: then the
    // row is scanned at once (same labels; the bounds are only tighter)
    let m = 0;
    if (!full) {
      m = Math.max(half[a], lower[i]);
      if (upper[i] < m) continue;
      if (exact[i] === 0) {
        loose++;
        if (measureFirst) {
          const u = Math.sqrt(dist2(X, i, centers, a, d));
          upper[i] = u;
          exact[i] = 1;
          if (u < m) {
            keep++;
            continue;
          }
        } else m = -m; // scanned below, counted there (m < 0 marks it; m > 0 here)
      }
    }
    // nearest and second nearest; ties go to the lowest index (a plain scan from 0). The
    // assigned center is scanned too (same bits as a measure): the row-against-all-centers
    // kernel costs less than skipping it would save
    rowToCenters(X, i * d, centers, k, d, toCenters);
    let b1 = Infinity;
    let b2 = Infinity;
    let best = 0;
    for (let j = 0; j < k; j++) {
      const v = toCenters[j];
      if (v < b1) {
        b2 = b1;
        b1 = v;
        best = j;
      } else if (v < b2) b2 = v;
    }
    if (m < 0 && Math.sqrt(toCenters[a]) < -m) keep++;
    if (best !== a) {
      const at = 2 * (from + changed);
      moves[at] = i;
      moves[at + 1] = a;
      labels[i] = best;
      changed++;
    }
    upper[i] = Math.sqrt(b1);
    lower[i] = Math.sqrt(b2);
    exact[i] = 1;
  }
  const c = task * COUNTS;
  s.counts[c] = changed;
  s.counts[c + 1] = loose;
  s.counts[c + 2] = keep;
}
