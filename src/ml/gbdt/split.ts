/**
 * Best split of a leaf from its histogram.
 * - numeric: scan thresholds over value bins, with missing values sent right and then left; the
 *   better direction is learned (with no missing rows in the leaf, missing follows the larger
 *   child). The threshold "all present values left, missing right" is tried too.
 * - categorical (LightGBM style): categories with at least `minDataPerGroup` rows are sorted by
 *   sum_grad / (sum_hess + catSmooth); prefixes (from both ends, at most `maxCatThreshold`
 *   categories) form the left set; rare and "other" categories go right; the gain uses the extra
 *   regularization `catL2`.
 * Gain = GL²/(HL+λ) + GR²/(HR+λ) − G²/(H+λ).
 */

export interface SplitParams {
  lambdaL2: number;
  minDataInLeaf: number;
  minSumHessianInLeaf: number;
  minGainToSplit: number;
  maxCatThreshold: number;
  catSmooth: number;
  catL2: number;
  minDataPerGroup: number;
}

/** Per-leaf best split (struct of arrays, indexed by leaf). */
export class SplitSearch {
  readonly gain: Float64Array;
  /**
   * The best split's score GL²/(HL+λ) + GR²/(HR+λ) (-Infinity when none): gain is this minus the
   * parent's score, which can round two different scores to one gain, so searches over parts of
   * the features (./parallel-grow) compare scores.
   */
  readonly score: Float64Array;
  readonly feature: Int32Array;
  /** numeric: left = value bins 1..threshold. */
  readonly threshold: Int32Array;
  readonly defaultLeft: Uint8Array;
  readonly isCat: Uint8Array;
  /** categorical: left bins catBins[leaf * 256 .. + catCount[leaf]). */
  readonly catCount: Int32Array;
  readonly catBins: Uint8Array;
  readonly leftG: Float64Array;
  readonly leftH: Float64Array;
  /** scratch for the categorical sort */
  readonly sortBins: Int32Array = new Int32Array(256);
  readonly sortKey: Float64Array = new Float64Array(256);

  constructor(
    maxLeaves: number,
    readonly p: SplitParams,
  ) {
    this.gain = new Float64Array(maxLeaves);
    this.score = new Float64Array(maxLeaves);
    this.feature = new Int32Array(maxLeaves);
    this.threshold = new Int32Array(maxLeaves);
    this.defaultLeft = new Uint8Array(maxLeaves);
    this.isCat = new Uint8Array(maxLeaves);
    this.catCount = new Int32Array(maxLeaves);
    this.catBins = new Uint8Array(maxLeaves * 256);
    this.leftG = new Float64Array(maxLeaves);
    this.leftH = new Float64Array(maxLeaves);
  }

  /** goLeft per bin (bin 0 = missing) for leaf l's best split. */
  fillTable(l: number, table: Uint8Array): void {
    table.fill(0);
    if (this.isCat[l]) {
      const base = l * 256;
      for (let i = 0; i < this.catCount[l]; i++) table[this.catBins[base + i]] = 1;
    } else {
      const t = this.threshold[l];
      for (let b = 1; b <= t; b++) table[b] = 1;
    }
    table[0] = this.defaultLeft[l];
  }
}

export function findBestSplit(
  s: SplitSearch,
  leaf: number,
  hist: Float64Array,
  off3: Int32Array,
  nb: Int32Array,
  isCat: Uint8Array,
  sel: Int32Array,
  nSel: number,
  G: number,
  H: number,
  C: number,
): void {
  const p = s.p;
  const lambda = p.lambdaL2;
  const minData = p.minDataInLeaf;
  const minHess = p.minSumHessianInLeaf;
  const parentScore = (G * G) / (H + lambda);
  let best = parentScore + p.minGainToSplit;
  let found = false;
  for (let j = 0; j < nSel; j++) {
    const f = sel[j];
    const o = off3[f];
    const nv = nb[f] - 1;
    const mg = hist[o];
    const mh = hist[o + 1];
    const mc = hist[o + 2];
    if (isCat[f] === 0) {
      let lg = 0;
      let lh = 0;
      let lc = 0;
      const last = mc > 0 ? nv : nv - 1;
      for (let t = 1; t <= last; t++) {
        const q = o + 3 * t;
        const cnt = hist[q + 2];
        if (cnt === 0 && t < nv) continue;
        lg += hist[q];
        lh += hist[q + 1];
        lc += cnt;
        // missing right
        if (lc >= minData && lh >= minHess) {
          const rc = C - lc;
          const rh = H - lh;
          if (rc >= minData && rh >= minHess) {
            const rg = G - lg;
            const gain = (lg * lg) / (lh + lambda) + (rg * rg) / (rh + lambda);
            if (gain > best) {
              best = gain;
              found = true;
              s.feature[leaf] = f;
              s.isCat[leaf] = 0;
              s.threshold[leaf] = t;
              s.defaultLeft[leaf] = mc > 0 ? 0 : lc >= rc ? 1 : 0;
              s.leftG[leaf] = lg;
              s.leftH[leaf] = lh;
            }
          }
        }
        if (mc > 0 && t < nv) {
          // missing left
          const lg2 = lg + mg;
          const lh2 = lh + mh;
          const lc2 = lc + mc;
          const rc = C - lc2;
          const rh = H - lh2;
          if (lc2 >= minData && lh2 >= minHess && rc >= minData && rh >= minHess) {
            const rg = G - lg2;
            const gain = (lg2 * lg2) / (lh2 + lambda) + (rg * rg) / (rh + lambda);
            if (gain > best) {
              best = gain;
              found = true;
              s.feature[leaf] = f;
              s.isCat[leaf] = 0;
              s.threshold[leaf] = t;
              s.defaultLeft[leaf] = 1;
              s.leftG[leaf] = lg2;
              s.leftH[leaf] = lh2;
            }
          }
        }
      }
    } else {
      // categorical: real categories are value bins 1..nv-1; bin nv is "other" (always right)
      const keys = s.sortKey;
      const order = s.sortBins;
      let k = 0;
      for (let b = 1; b < nv; b++) {
        const q = o + 3 * b;
        if (hist[q + 2] >= p.minDataPerGroup) {
          const key = hist[q] / (hist[q + 1] + p.catSmooth);
          // insertion sort by key (at most 254 entries)
          let i = k++;
          while (i > 0 && keys[i - 1] > key) {
            keys[i] = keys[i - 1];
            order[i] = order[i - 1];
            i--;
          }
          keys[i] = key;
          order[i] = b;
        }
      }
      if (k === 0) continue;
      const lambdaC = lambda + p.catL2;
      const maxLeft = Math.min(p.maxCatThreshold, k);
      let bestDir = -1;
      let bestLen = 0;
      for (let dir = 0; dir < 2; dir++) {
        let lg = 0;
        let lh = 0;
        let lc = 0;
        for (let i = 0; i < maxLeft; i++) {
          const q = o + 3 * order[dir === 0 ? i : k - 1 - i];
          lg += hist[q];
          lh += hist[q + 1];
          lc += hist[q + 2];
          for (let ml = 0; ml < 2; ml++) {
            if (ml === 1 && mc === 0) break;
            const lg2 = ml ? lg + mg : lg;
            const lh2 = ml ? lh + mh : lh;
            const lc2 = ml ? lc + mc : lc;
            const rc = C - lc2;
            const rh = H - lh2;
            if (lc2 < minData || lh2 < minHess || rc < minData || rh < minHess) continue;
            const rg = G - lg2;
            const gain = (lg2 * lg2) / (lh2 + lambdaC) + (rg * rg) / (rh + lambdaC);
            if (gain > best) {
              best = gain;
              found = true;
              bestDir = dir;
              bestLen = i + 1;
              s.feature[leaf] = f;
              s.isCat[leaf] = 1;
              s.defaultLeft[leaf] = ml === 1 ? 1 : mc > 0 ? 0 : lc >= rc ? 1 : 0;
              s.leftG[leaf] = lg2;
              s.leftH[leaf] = lh2;
            }
          }
        }
      }
      if (bestDir >= 0) {
        const base = leaf * 256;
        for (let i = 0; i < bestLen; i++) s.catBins[base + i] = order[bestDir === 0 ? i : k - 1 - i];
        s.catCount[leaf] = bestLen;
      }
    }
  }
  s.gain[leaf] = found ? best - parentScore : -Infinity;
  s.score[leaf] = found ? best : -Infinity;
}
