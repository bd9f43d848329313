/**
 * Chooses the ivf index's nprobe: the smallest number of visited cells whose recall@10 against
 * exact search reaches the target, measured on a seeded sample of training rows used as queries,
 * leave-one-out (each query's own row is removed from both answers, so it measures how well the
 * index finds a row's neighbours, not the row itself). The sample's recall is an estimate, so the
 * target must be met by its lower bound (mean − 2 standard errors over the queries): new queries
 * then reach it too. The measured recall at the chosen nprobe is kept in the index and shown in
 * the model's summary. When even every cell misses the target (8-bit codes reorder near-ties),
 * nprobe = nlist and the lower recall is what is reported.
 */
import type { ParallelExecutor } from "../parallel";
import { Rng } from "../random";
import { searchRows } from "./search";
import type { ExactIndex, IvfIndex } from "./types";

const RECALL_K = 10;
const SAMPLE_QUERIES = 1000;

/** Training rows used as leave-one-out queries, and their exact neighbours. */
export interface RecallSample {
  /** The sampled training rows, ascending. */
  self: Int32Array;
  /** Their vectors ([self.length x dims]). */
  queries: Float64Array;
  /** Neighbours per query (min(10, rows − 1); 0 when there is one row). */
  k: number;
  /** Per query, its k exact neighbours other than itself ([self.length x k]). */
  truth: Int32Array;
  /** Share of the rows whose distance the exact search computed per query (1: no pruning at all). */
  scanShare: number;
}

/** A seeded sample of training rows and their exact neighbours (one exact search of the sample). */
export function recallSample(exact: ExactIndex, x: Float32Array, seed: number, parallel?: ParallelExecutor): RecallSample {
  const { rows, dims } = exact;
  const k = Math.min(RECALL_K, rows - 1);
  const self = sampleRows(rows, Math.min(SAMPLE_QUERIES, rows), new Rng(seed ^ 0x2545f491));
  const queries = new Float64Array(self.length * dims);
  self.forEach((r, i) => {
    for (let j = 0; j < dims; j++) queries[i * dims + j] = x[r * dims + j];
  });
  // one row: no neighbour to find, nothing to prune
  if (k < 1) return { self, queries, k, truth: new Int32Array(0), scanShare: 0 };
  const stats = { scanned: 0 };
  const truth = neighbours(searchRows(exact, queries, self.length, k + 1, exact.nprobe, stats, parallel), self, k);
  return { self, queries, k, truth, scanShare: stats.scanned / (self.length * rows) };
}

/** The ivf index's nprobe for the target recall; `met`: whether the recall's lower bound reaches it. */
export function tuneNprobe(
  ivf: IvfIndex,
  sample: RecallSample,
  target: number,
  parallel?: ParallelExecutor,
): { nprobe: number; recall: number; met: boolean } {
  const { nlist } = ivf;
  const { self, queries, k, truth } = sample;
  if (k < 1) return { nprobe: nlist, recall: 1, met: true };
  let recall = 0;
  for (const nprobe of candidates(nlist)) {
    const found = neighbours(searchRows(ivf, queries, self.length, k + 1, nprobe, undefined, parallel), self, k);
    const r = overlap(truth, found, self.length, k);
    recall = r.mean;
    const met = r.mean - 2 * r.stderr >= target;
    if (met || nprobe === nlist) return { nprobe, recall, met };
  }
  return { nprobe: nlist, recall, met: false };
}

/** 1, 2, 3, ... growing by a quarter, ending at nlist. */
function candidates(nlist: number): number[] {
  const out: number[] = [];
  for (let p = 1; p < nlist; p = Math.max(p + 1, Math.ceil(p * 1.25))) out.push(p);
  out.push(nlist);
  return out;
}

function sampleRows(n: number, m: number, rng: Rng): Int32Array {
  const idx = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < m; i++) {
    const j = i + rng.int(n - i);
    const t = idx[i];
    idx[i] = idx[j];
    idx[j] = t;
  }
  return idx.slice(0, m).sort();
}

/** Per query, the first k result rows other than the query's own row ([queries x k]). */
function neighbours(r: { k: number; rows: Int32Array }, self: Int32Array, k: number): Int32Array {
  const out = new Int32Array(self.length * k);
  for (let q = 0; q < self.length; q++) {
    let n = 0;
    for (let t = 0; t < r.k && n < k; t++) {
      const row = r.rows[q * r.k + t];
      if (row !== self[q]) out[q * k + n++] = row;
    }
  }
  return out;
}

/** Mean over the queries of the fraction of true neighbours found, and its standard error. */
function overlap(truth: Int32Array, found: Int32Array, queries: number, k: number): { mean: number; stderr: number } {
  let sum = 0;
  let sum2 = 0;
  for (let q = 0; q < queries; q++) {
    const want = new Set(truth.subarray(q * k, q * k + k));
    let hit = 0;
    for (let t = 0; t < k; t++) if (want.has(found[q * k + t])) hit++;
    sum += hit / k;
    sum2 += (hit / k) ** 2;
  }
  const mean = sum / queries;
  const variance = queries > 1 ? Math.max(0, sum2 / queries - mean * mean) * (queries / (queries - 1)) : 0;
  return { mean, stderr: Math.sqrt(variance / queries) };
}
