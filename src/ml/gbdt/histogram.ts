/**
 * Gradient histograms. One Float64Array per leaf holds, for every bin of every feature,
 * the triple (sum grad, sum hess, count) at index (featureOffset[f] + bin) * 3.
 * Hot loops: typed arrays only, no closures, no allocation.
 */

/** Accumulate rows[start..end) into hist for the selected features (hist must be zeroed). */
export function buildHistogram(
  hist: Float64Array,
  bins: Uint8Array,
  numFeatures: number,
  off3: Int32Array,
  sel: Int32Array,
  nSel: number,
  rows: Int32Array,
  start: number,
  end: number,
  grad: Float64Array,
  hess: Float64Array,
): void {
  const F = numFeatures;
  if (nSel === F) {
    for (let i = start; i < end; i++) {
      const r = rows[i];
      const g = grad[r];
      const h = hess[r];
      const base = r * F;
      for (let f = 0; f < F; f++) {
        const idx = off3[f] + bins[base + f] * 3;
        hist[idx] += g;
        hist[idx + 1] += h;
        hist[idx + 2] += 1;
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
  rows: Int32Array,
  start: number,
  end: number,
  grad: Float64Array,
): void {
  const F = numFeatures;
  if (nSel === F) {
    for (let i = start; i < end; i++) {
      const r = rows[i];
      const g = grad[r];
      const base = r * F;
      for (let f = 0; f < F; f++) {
        const idx = off3[f] + bins[base + f] * 3;
        hist[idx] += g;
        hist[idx + 2] += 1;
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
