/**
 * Gradient histograms. One Float64Array per leaf holds, for every bin of every feature,
 * the triple (sum grad, sum hess, count) at index (featureOffset[f] + bin) * 3.
 * Hot loops: typed arrays only, no closures, no allocation.
 */

/**
 * Accumulate rows[start..end) into hist for the selected features (hist must be zeroed).
 * `blocked`: the selection is every feature (or a thread's share of every feature, see
 * ./parallel-grow), where blocks of rows beat one pass over the rows.
 */
export function buildHistogram(
  hist: Float64Array,
  bins: Uint8Array,
  numFeatures: number,
  off3: Int32Array,
  sel: Int32Array,
  nSel: number,
  blocked: boolean,
  rows: Int32Array,
  start: number,
  end: number,
  grad: Float64Array,
  hess: Float64Array,
): void {
  const F = numFeatures;
  if (blocked) {
    // blocks of rows, two features at a time (see buildRootHistogram)
    const B = 2048;
    for (let i0 = start; i0 < end; i0 += B) {
      const i1 = Math.min(end, i0 + B);
      let j = 0;
      for (; j + 2 <= nSel; j += 2) {
        const f0 = sel[j];
        const f1 = sel[j + 1];
        const o0 = off3[f0];
        const o1 = off3[f1];
        for (let i = i0; i < i1; i++) {
          const r = rows[i];
          const g = grad[r];
          const h = hess[r];
          const base = r * F;
          const x0 = o0 + bins[base + f0] * 3;
          const x1 = o1 + bins[base + f1] * 3;
          hist[x0] += g;
          hist[x0 + 1] += h;
          hist[x0 + 2] += 1;
          hist[x1] += g;
          hist[x1 + 1] += h;
          hist[x1 + 2] += 1;
        }
      }
      for (; j < nSel; j++) {
        const f = sel[j];
        const o = off3[f];
        for (let i = i0; i < i1; i++) {
          const r = rows[i];
          const idx = o + bins[r * F + f] * 3;
          hist[idx] += grad[r];
          hist[idx + 1] += hess[r];
          hist[idx + 2] += 1;
        }
      }
    }
  } else {
    for (let i = start; i < end; i++) {
      const r = rows[i];
      const g = grad[r];
      const h = hess[r];
      const base = r * F;
      for (let j = 0; j < nSel; j++) {
        const f = sel[j];
        const idx = off3[f] + bins[base + f] * 3;
        hist[idx] += g;
        hist[idx + 1] += h;
        hist[idx + 2] += 1;
      }
    }
  }
}

/** Same as buildHistogram when every hessian is 1 (L2 regression): the count is the hessian. */
export function buildHistogramUnitHess(
  hist: Float64Array,
  bins: Uint8Array,
  numFeatures: number,
  off3: Int32Array,
  sel: Int32Array,
  nSel: number,
  blocked: boolean,
  rows: Int32Array,
  start: number,
  end: number,
  grad: Float64Array,
): void {
  const F = numFeatures;
  if (blocked) {
    // blocks of rows, four features at a time (see buildRootHistogram)
    const B = 2048;
    for (let i0 = start; i0 < end; i0 += B) {
      const i1 = Math.min(end, i0 + B);
      let j = 0;
      for (; j + 4 <= nSel; j += 4) {
        const f0 = sel[j];
        const f1 = sel[j + 1];
        const f2 = sel[j + 2];
        const f3 = sel[j + 3];
        const o0 = off3[f0];
        const o1 = off3[f1];
        const o2 = off3[f2];
        const o3 = off3[f3];
        for (let i = i0; i < i1; i++) {
          const r = rows[i];
          const g = grad[r];
          const base = r * F;
          const x0 = o0 + bins[base + f0] * 3;
          const x1 = o1 + bins[base + f1] * 3;
          const x2 = o2 + bins[base + f2] * 3;
          const x3 = o3 + bins[base + f3] * 3;
          hist[x0] += g;
          hist[x0 + 2] += 1;
          hist[x1] += g;
          hist[x1 + 2] += 1;
          hist[x2] += g;
          hist[x2 + 2] += 1;
          hist[x3] += g;
          hist[x3 + 2] += 1;
        }
      }
      for (; j < nSel; j++) {
        const f = sel[j];
        const o = off3[f];
        for (let i = i0; i < i1; i++) {
          const r = rows[i];
          const idx = o + bins[r * F + f] * 3;
          hist[idx] += grad[r];
          hist[idx + 2] += 1;
        }
      }
    }
  } else {
    for (let i = start; i < end; i++) {
      const r = rows[i];
      const g = grad[r];
      const base = r * F;
      for (let j = 0; j < nSel; j++) {
        const f = sel[j];
        const idx = off3[f] + bins[base + f] * 3;
        hist[idx] += g;
        hist[idx + 2] += 1;
      }
    }
  }
}

/**
 * The root's histogram without bagging: every row 0..n-1, in order, so no row-index indirection,
 * and the counts (which never change between trees) copied from `counts`, the same layout built
 * once by countBins: per row and feature one add of the gradient (and of the hessian, unless
 * `hess` is null: unit hessians, see countsToHess) instead of two or three. The sums add the same
 * values in the same order as buildHistogram over rows 0..n-1, so the trees are bit-identical.
 */
export function buildRootHistogram(
  hist: Float64Array,
  bins: Uint8Array,
  numFeatures: number,
  off3: Int32Array,
  nb: Int32Array,
  sel: Int32Array,
  nSel: number,
  blocked: boolean,
  n: number,
  grad: Float64Array,
  hess: Float64Array | null,
  counts: Float64Array,
): void {
  const F = numFeatures;
  for (let j = 0; j < nSel; j++) {
    const f = sel[j];
    for (let idx = off3[f], e = off3[f] + nb[f] * 3; idx < e; idx += 3) {
      hist[idx] = 0;
      hist[idx + 1] = 0;
      hist[idx + 2] = counts[idx + 2];
    }
  }
  if (blocked && hess === null) {
    // blocks of rows, four features at a time: the four features' bins (4 x 6 KB) stay in L1
    // where all F would not, and four independent adds keep going while one waits on a bin that
    // the previous row also hit
    const B = 2048;
    for (let r0 = 0; r0 < n; r0 += B) {
      const r1 = Math.min(n, r0 + B);
      let j = 0;
      for (; j + 4 <= nSel; j += 4) {
        const f0 = sel[j];
        const o0 = off3[f0];
        const d1 = sel[j + 1] - f0;
        const d2 = sel[j + 2] - f0;
        const d3 = sel[j + 3] - f0;
        const o1 = off3[f0 + d1];
        const o2 = off3[f0 + d2];
        const o3 = off3[f0 + d3];
        for (let r = r0, base = r0 * F + f0; r < r1; r++, base += F) {
          const g = grad[r];
          hist[o0 + bins[base] * 3] += g;
          hist[o1 + bins[base + d1] * 3] += g;
          hist[o2 + bins[base + d2] * 3] += g;
          hist[o3 + bins[base + d3] * 3] += g;
        }
      }
      for (; j < nSel; j++) {
        const f = sel[j];
        const o = off3[f];
        for (let r = r0, base = r0 * F + f; r < r1; r++, base += F) hist[o + bins[base] * 3] += grad[r];
      }
    }
  } else if (blocked && hess !== null) {
    const B = 2048;
    for (let r0 = 0; r0 < n; r0 += B) {
      const r1 = Math.min(n, r0 + B);
      let j = 0;
      for (; j + 2 <= nSel; j += 2) {
        const f0 = sel[j];
        const d1 = sel[j + 1] - f0;
        const o0 = off3[f0];
        const o1 = off3[f0 + d1];
        for (let r = r0, base = r0 * F + f0; r < r1; r++, base += F) {
          const g = grad[r];
          const h = hess[r];
          const x0 = o0 + bins[base] * 3;
          const x1 = o1 + bins[base + d1] * 3;
          hist[x0] += g;
          hist[x0 + 1] += h;
          hist[x1] += g;
          hist[x1 + 1] += h;
        }
      }
      for (; j < nSel; j++) {
        const f = sel[j];
        const o = off3[f];
        for (let r = r0, base = r0 * F + f; r < r1; r++, base += F) {
          const idx = o + bins[base] * 3;
          hist[idx] += grad[r];
          hist[idx + 1] += hess[r];
        }
      }
    }
  } else {
    for (let r = 0, base = 0; r < n; r++, base += F) {
      const g = grad[r];
      const h = hess === null ? 0 : hess[r];
      for (let j = 0; j < nSel; j++) {
        const f = sel[j];
        const idx = off3[f] + bins[base + f] * 3;
        hist[idx] += g;
        if (hess !== null) hist[idx + 1] += h;
      }
    }
  }
}

/** Rows per (feature, bin) over rows 0..n-1, at the count slots of the histogram layout. */
export function countBins(bins: Uint8Array, numFeatures: number, off3: Int32Array, n: number, size: number): Float64Array {
  const counts = new Float64Array(size);
  for (let r = 0, base = 0; r < n; r++, base += numFeatures) {
    for (let f = 0; f < numFeatures; f++) counts[off3[f] + bins[base + f] * 3 + 2] += 1;
  }
  return counts;
}

/** For unit hessians: copy counts into the hessian slot of the selected features. */
export function countsToHess(hist: Float64Array, off3: Int32Array, nb: Int32Array, sel: Int32Array, nSel: number): void {
  for (let j = 0; j < nSel; j++) {
    const f = sel[j];
    const end = off3[f] + nb[f] * 3;
    for (let idx = off3[f]; idx < end; idx += 3) hist[idx + 1] = hist[idx + 2];
  }
}

/** parent -= child over the selected features (parent then holds the sibling's histogram). */
export function subtractHistogram(parent: Float64Array, child: Float64Array, off3: Int32Array, nb: Int32Array, sel: Int32Array, nSel: number): void {
  for (let j = 0; j < nSel; j++) {
    const f = sel[j];
    const end = off3[f] + nb[f] * 3;
    for (let idx = off3[f]; idx < end; idx++) parent[idx] -= child[idx];
  }
}

export function zeroHistogram(hist: Float64Array, off3: Int32Array, nb: Int32Array, sel: Int32Array, nSel: number): void {
  if (nSel === off3.length) {
    hist.fill(0);
    return;
  }
  for (let j = 0; j < nSel; j++) {
    const f = sel[j];
    hist.fill(0, off3[f], off3[f] + nb[f] * 3);
  }
}
