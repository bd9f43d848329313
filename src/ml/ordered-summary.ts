/**
 * What the profile of a numeric-storage column takes from its present values in ascending order:
 * how many, how many distinct, the first and the last, and over the finite values Welford's
 * running mean and sum of squared deviations, min, max, and whether all are integers.
 *
 * The reference is one loop over the sorted copy of the present values (Float64Array.sort). The
 * three forms of ordered values below give the same numbers bit for bit: Welford's pass sees the
 * same doubles in the same order (a value counted `c` times is added `c` times).
 */
import { sortedPresent } from "./radix-sort";
import { type Grid, gridOrder, gridValue } from "./value-grid";

export interface OrderedSummary {
  present: number;
  distinct: number;
  first: number;
  last: number;
  /** Finite values: how many, their running mean and sum of squared deviations. */
  count: number;
  mean: number;
  m2: number;
  min: number;
  max: number;
  integers: boolean;
}

/**
 * Welford's loops below have no branch inside: TurboFan compiles a loop carrying a double through
 * a division twice as slow when its body branches, even on a branch never taken (measured, node 22).
 */

/** Present values in ascending order (no NaN): a sorted copy, or a column already in order. */
function summarizeSorted(sorted: Float64Array, moments: boolean): OrderedSummary {
  const n = sorted.length;
  // ±Infinity sit at the ends; Welford's pass and min, max take the finite values between.
  let lo = 0;
  while (lo < n && sorted[lo] === -Infinity) lo++;
  let hi = n;
  while (hi > lo && sorted[hi - 1] === Infinity) hi--;
  // −0 and +0 are one distinct value, as `!==` has it (a sort puts all −0 first).
  let distinct = Number(lo > 0) + Number(hi < n);
  let prev = NaN;
  let nonIntegers = 0;
  let mean = 0;
  let m2 = 0;
  if (moments) {
    for (let i = lo; i < hi; i++) {
      const x = sorted[i];
      distinct += Number(x !== prev);
      prev = x;
      nonIntegers += Number(Math.trunc(x) !== x);
      const d = x - mean;
      mean += d / (i - lo + 1);
      m2 += d * (x - mean);
    }
  } else {
    for (let i = lo; i < hi; i++) {
      distinct += Number(sorted[i] !== prev);
      prev = sorted[i];
    }
  }
  const count = moments ? hi - lo : 0;
  const [min, max] = count > 0 ? [sorted[lo], sorted[hi - 1]] : [NaN, NaN];
  return {
    present: n,
    distinct,
    first: n > 0 ? sorted[0] : NaN,
    last: n > 0 ? sorted[n - 1] : NaN,
    count,
    mean,
    m2,
    min,
    max,
    integers: nonIntegers === 0,
  };
}

/** Counts per grid point from lo (grid values: finite, no −0). */
function summarizeCounts(grid: Grid, lo: number, perPoint: Int32Array, moments: boolean): OrderedSummary {
  let present = 0;
  let distinct = 0;
  let first = NaN;
  let last = NaN;
  let count = 0;
  let mean = 0;
  let m2 = 0;
  let integers = true;
  for (let i = 0; i < perPoint.length; i++) {
    const times = perPoint[i];
    if (times === 0) continue;
    const x = gridValue(grid, lo + i);
    if (distinct++ === 0) first = x;
    last = x;
    present += times;
    if (!moments) continue;
    if (integers && !Number.isInteger(x)) integers = false;
    for (let k = times; k > 0; k--) {
      count++;
      const d = x - mean;
      mean += d / count;
      m2 += d * (x - mean);
    }
  }
  return { present, distinct, first, last, count, mean, m2, min: first, max: last, integers };
}

/** Sorted keys k − lo of grid points (grid values: finite, no −0). */
function summarizeKeys(grid: Grid, lo: number, keys: Uint32Array, moments: boolean): OrderedSummary {
  const n = keys.length;
  let distinct = 0;
  let prev = -1;
  for (let i = 0; i < n; i++) {
    distinct += Number(keys[i] !== prev);
    prev = keys[i];
  }
  const first = gridValue(grid, lo + keys[0]);
  const last = gridValue(grid, lo + keys[n - 1]);
  const s = { present: n, distinct, first, last, count: 0, mean: 0, m2: 0, min: first, max: last, integers: true };
  if (!moments) return s;
  const { times, step } = grid;
  let mean = 0;
  let m2 = 0;
  let nonIntegers = 0;
  // One loop per kind of grid, the value written out (k / times or k · step, as gridValue).
  if (times) {
    for (let i = 0; i < n; i++) {
      const x = (lo + keys[i]) / times;
      nonIntegers += Number(Math.trunc(x) !== x);
      const d = x - mean;
      mean += d / (i + 1);
      m2 += d * (x - mean);
    }
  } else {
    for (let i = 0; i < n; i++) {
      const x = (lo + keys[i]) * step;
      nonIntegers += Number(Math.trunc(x) !== x);
      const d = x - mean;
      mean += d / (i + 1);
      m2 += d * (x - mean);
    }
  }
  return { ...s, count: n, mean, m2, integers: nonIntegers === 0 };
}

/**
 * The ordered summary of a column's present values, by the cheapest exact route: a column already
 * in ascending order is read as it is; values on a grid go through their grid points (value-grid);
 * the rest (and any column holding −0 or ±Infinity) through a radix-sorted copy.
 */
export function orderedSummary(values: Float64Array, moments: boolean): OrderedSummary {
  const s = scan(values);
  if (s === "ascending") return summarizeSorted(values, moments);
  if (s === "ascending with missing") return summarizeSorted(presentValues(values), moments);
  if (s !== "unordered" && s.min !== -Infinity && s.max !== Infinity) {
    const order = gridOrder(values, s.present, s.min, s.max);
    if (order && "perPoint" in order) return summarizeCounts(order.grid, order.lo, order.perPoint, moments);
    if (order) return summarizeKeys(order.grid, order.lo, order.keys, moments);
  }
  return summarizeSorted(sortedPresent(values), moments);
}

/**
 * "ascending" when the values are already in order ("ascending with missing": once NaNs are
 * left out); else the present values' count, min and max;
 * "unordered" for a −0 (the sort puts every −0 before every +0, which only a sort reproduces).
 * The order check stops at the first descent (a branch taken at random would cost more).
 */
function scan(values: Float64Array): "ascending" | "ascending with missing" | "unordered" | { present: number; min: number; max: number } {
  let present = 0;
  let first = Infinity;
  let prev = -Infinity;
  let i = 0;
  for (; i < values.length; i++) {
    const v = values[i];
    if (v !== v) continue;
    if (v < prev) break;
    if (Object.is(v, -0)) return "unordered";
    if (present++ === 0) first = v;
    prev = v;
  }
  if (i === values.length) return present === values.length ? "ascending" : "ascending with missing";
  let min = first;
  let max = prev;
  for (; i < values.length; i++) {
    const v = values[i];
    if (v !== v) continue;
    if (Object.is(v, -0)) return "unordered";
    present++;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return { present, min, max };
}

/** The present values in order. */
function presentValues(values: Float64Array): Float64Array {
  let n = 0;
  for (let i = 0; i < values.length; i++) n += Number(values[i] === values[i]);
  const out = new Float64Array(n);
  let k = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === v) out[k++] = v;
  }
  return out;
}
