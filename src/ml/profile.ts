/**
 * The column profile of a table: what the dataset detail shows as `columns`, what request-time
 * checks of a training read, and what the shared representation keeps. One definition:
 * - counts: missing values, exact distinct values;
 * - numeric columns: min, max, mean and sample standard deviation (n − 1) over the finite values
 *   (mean and deviation by Welford's method, exact for large values with a small spread such as
 *   timestamps), and whether every finite value is an integer (`integer_valued`, which decides
 *   whether a label of few values is classes or a quantity);
 * - datetime columns: ISO min and max; boolean columns: the share of true and both counts;
 * - categorical and text columns: the 5 most frequent values.
 * Every field is present (null when it does not apply), except `integer_valued`, which only
 * numeric columns with finite values have. Never NaN or Infinity: the profile is safe JSON.
 */
import type { Column, ColumnKind, Frame } from "./frame";

export interface ColumnProfile {
  name: string;
  type: ColumnKind;
  missing_count: number;
  distinct_count: number;
  /** numeric and numeric ids: numbers; datetime: ISO strings. */
  min: number | string | null;
  max: number | string | null;
  /** numeric: the mean; boolean: the share of true. */
  mean: number | null;
  /** numeric: sample standard deviation (n − 1). */
  std: number | null;
  /** categorical, text and boolean: the most frequent values, most frequent first. */
  top_values: Array<{ value: string | boolean; count: number }> | null;
  integer_valued?: boolean;
}

const TOP = 5;

export function profileFrame(frame: Frame): ColumnProfile[] {
  return frame.columns.map(profileColumn);
}

export function profileColumn(column: Column): ColumnProfile {
  const base = { name: column.name, type: column.kind, min: null, max: null, mean: null, std: null, top_values: null };
  if (column.storage === "dictionary") {
    const counts = new Float64Array(column.dictionary.length);
    let missing = 0;
    for (const c of column.codes) c < 0 ? missing++ : counts[c]++;
    let distinct = 0;
    for (const n of counts) if (n > 0) distinct++;
    const top = column.kind === "id" ? null : topIndexes(counts, TOP).map((i) => ({ value: column.dictionary[i], count: counts[i] }));
    return { ...base, missing_count: missing, distinct_count: distinct, top_values: top };
  }

  // Numeric storage: the present values in ascending order give the distinct count, min and max
  // (and the order of Welford's pass below).
  const fast = profileRuns(column, base);
  if (fast) return fast;
  const present = presentValues(column.values).sort();
  const n = present.length;
  let distinct = n > 0 ? 1 : 0;
  for (let i = 1; i < n; i++) if (present[i] !== present[i - 1]) distinct++;
  const summary = { ...base, missing_count: column.values.length - n, distinct_count: distinct };
  if (n === 0) return summary;

  if (column.kind === "boolean") {
    let trues = 0;
    for (const v of present) if (v !== 0) trues++;
    return { ...summary, ...booleanCounts(trues, n) };
  }
  if (column.kind === "datetime") {
    return { ...summary, min: new Date(present[0]).toISOString(), max: new Date(present[n - 1]).toISOString() };
  }
  const s = finiteSummary(present);
  if (!s) return summary;
  const numeric = { ...summary, min: s.min, max: s.max, mean: s.mean, std: s.count > 1 ? Math.sqrt(s.m2 / (s.count - 1)) : null };
  return column.kind === "numeric" ? { ...numeric, integer_valued: s.integers } : numeric;
}

type Base = Pick<ColumnProfile, "name" | "type" | "min" | "max" | "mean" | "std" | "top_values">;

/**
 * The profile of a numeric-storage column from its distinct present values in ascending order
 * with their counts (forEachRun): the same numbers, bit for bit, as from the sorted copy of its
 * present values (Welford's pass repeats each value `count` times, in the same order), without
 * sorting. Undefined when forEachRun does not apply.
 */
function profileRuns(column: Column & { storage: "numeric" }, base: Base): ColumnProfile | undefined {
  let distinct = 0;
  let first = NaN;
  let last = NaN;
  let trues = 0;
  let count = 0;
  let mean = 0;
  let m2 = 0;
  let integers = true;
  let min = NaN;
  let max = NaN;
  const kind = column.kind;
  const n = forEachRun(column.values, (x, times) => {
    if (distinct++ === 0) first = x;
    last = x;
    if (kind === "boolean") {
      if (x !== 0) trues += times;
      return;
    }
    if (kind === "datetime" || x === Infinity || x === -Infinity) return;
    if (count === 0) min = x;
    max = x;
    if (integers && !Number.isInteger(x)) integers = false;
    for (let k = times; k > 0; k--) {
      count++;
      const d = x - mean;
      mean += d / count;
      m2 += d * (x - mean);
    }
  });
  if (n === undefined) return undefined;
  const summary = { ...base, missing_count: column.values.length - n, distinct_count: distinct };
  if (n === 0) return summary;
  if (kind === "boolean") return { ...summary, ...booleanCounts(trues, n) };
  if (kind === "datetime") return { ...summary, min: new Date(first).toISOString(), max: new Date(last).toISOString() };
  if (count === 0) return summary;
  const numeric = { ...summary, min, max, mean, std: count > 1 ? Math.sqrt(m2 / (count - 1)) : null };
  return kind === "numeric" ? { ...numeric, integer_valued: integers } : numeric;
}

/** The values that are not NaN, in order (a loop: Float64Array.filter with a callback is ~25× slower). */
function presentValues(values: Float64Array): Float64Array {
  let n = 0;
  for (let i = 0; i < values.length; i++) if (values[i] === values[i]) n++;
  const out = new Float64Array(n);
  let k = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === v) out[k++] = v;
  }
  return out;
}

const DAY_MS = 86_400_000;
/** Grids tried for counting: integers, decimals of 1 to 4 places (k / 10^p), whole days in ms. */
const GRIDS: ReadonlyArray<{ times: number } | { per: number }> = [
  { times: 1 },
  { times: 10 },
  { times: 100 },
  { times: 1000 },
  { times: 10000 },
  { per: DAY_MS },
];

/**
 * Calls visit(value, count) for each distinct present (non-NaN) value in ascending order and
 * returns how many values are present, when that is cheap without a sort: values already in
 * ascending order (a row counter, a generated id), or all of them on a grid of at most
 * 2n + 65,536 points k/10^p (p ≤ 4) or k·day, counted per grid point (integers, prices, dates).
 * Otherwise, and for any -0 (a sort puts -0 before 0 and counts them as one value: that case
 * stays with the sort), returns undefined before visiting anything. Exact: a value joins grid
 * point k only if k's value is that very double, so points are distinct values, in order.
 */
function forEachRun(values: Float64Array, visit: (value: number, count: number) => void): number | undefined {
  let n = 0;
  let ascending = true;
  let prev = -Infinity;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== v) continue;
    if (v === 0 && 1 / v < 0) return undefined;
    n++;
    if (v < prev) ascending = false;
    prev = v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (n === 0) return 0;
  if (ascending) {
    let run = NaN;
    let times = 0;
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v !== v) continue;
      if (v === run) times++;
      else {
        if (times > 0) visit(run, times);
        run = v;
        times = 1;
      }
    }
    visit(run, times);
    return n;
  }
  if (min === -Infinity || max === Infinity) return undefined;
  const counts = gridCounts(values, n, min, max);
  if (!counts) return undefined;
  const { lo, value, perPoint } = counts;
  for (let i = 0; i < perPoint.length; i++) if (perPoint[i] > 0) visit(value(lo + i), perPoint[i]);
  return n;
}

/** The present values counted per point of the first grid that holds them all (see forEachRun). */
function gridCounts(
  values: Float64Array,
  n: number,
  min: number,
  max: number,
): { lo: number; value: (k: number) => number; perPoint: Int32Array } | undefined {
  const limit = 2 * n + 65536;
  for (const grid of GRIDS) {
    const times = "times" in grid ? grid.times : 0;
    const per = "per" in grid ? grid.per : 0;
    const point = (v: number) => (times ? Math.round(v * times) : v / per);
    const value = (k: number) => (times ? k / times : k * per);
    const lo = point(min);
    const hi = point(max);
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || value(lo) !== min || value(hi) !== max || hi - lo + 1 > limit) continue;
    // A look at the first values before allocating the counts (a float column fails here).
    let fits = true;
    for (let i = 0, seen = 0; i < values.length && seen < 1024 && fits; i++) {
      const v = values[i];
      if (v !== v) continue;
      seen++;
      if (value(point(v)) !== v) fits = false;
    }
    if (!fits) continue;
    const perPoint = new Int32Array(hi - lo + 1);
    // point and value written out (the hot loop of a large column).
    if (times) {
      for (let i = 0; i < values.length && fits; i++) {
        const v = values[i];
        if (v !== v) continue;
        const k = Math.round(v * times);
        if (k / times !== v) fits = false;
        else perPoint[k - lo]++;
      }
    } else {
      for (let i = 0; i < values.length && fits; i++) {
        const v = values[i];
        if (v !== v) continue;
        const k = v / per;
        if (k * per !== v || !Number.isInteger(k)) fits = false;
        else perPoint[k - lo]++;
      }
    }
    if (fits) return { lo, value, perPoint };
  }
  return undefined;
}

/** Welford's running mean and sum of squared deviations over the finite values (sorted input). */
function finiteSummary(sorted: Float64Array): { count: number; min: number; max: number; mean: number; m2: number; integers: boolean } | null {
  let count = 0;
  let mean = 0;
  let m2 = 0;
  let integers = true;
  for (const x of sorted) {
    if (x === Infinity || x === -Infinity) continue;
    count++;
    const d = x - mean;
    mean += d / count;
    m2 += d * (x - mean);
    if (integers && !Number.isInteger(x)) integers = false;
  }
  if (count === 0) return null;
  let lo = 0;
  while (!Number.isFinite(sorted[lo])) lo++;
  let hi = sorted.length - 1;
  while (!Number.isFinite(sorted[hi])) hi--;
  return { count, min: sorted[lo], max: sorted[hi], mean, m2, integers };
}

/** Indexes of the k largest counts (ties: first in dictionary order), skipping zeros. */
function topIndexes(counts: Float64Array, k: number): number[] {
  const top: number[] = [];
  for (let i = 0; i < counts.length; i++) {
    if (counts[i] === 0) continue;
    if (top.length === k && counts[i] <= counts[top[k - 1]]) continue;
    let at = top.length;
    while (at > 0 && counts[top[at - 1]] < counts[i]) at--;
    top.splice(at, 0, i);
    if (top.length > k) top.pop();
  }
  return top;
}

/** A boolean column's mean and its values by count, most frequent first (absent values left out). */
function booleanCounts(trues: number, n: number) {
  const top = [
    { value: true, count: trues },
    { value: false, count: n - trues },
  ]
    .filter((t) => t.count > 0)
    .sort((a, b) => b.count - a.count);
  return { mean: trues / n, top_values: top };
}
