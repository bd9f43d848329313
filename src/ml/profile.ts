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

  // Numeric storage: a sorted copy of the present values gives the distinct count, min and max.
  const present = column.values.filter((v) => !Number.isNaN(v)).sort();
  const n = present.length;
  let distinct = n > 0 ? 1 : 0;
  for (let i = 1; i < n; i++) if (present[i] !== present[i - 1]) distinct++;
  const summary = { ...base, missing_count: column.values.length - n, distinct_count: distinct };
  if (n === 0) return summary;

  if (column.kind === "boolean") {
    let trues = 0;
    for (const v of present) if (v !== 0) trues++;
    const top = [
      { value: true, count: trues },
      { value: false, count: n - trues },
    ]
      .filter((t) => t.count > 0)
      .sort((a, b) => b.count - a.count);
    return { ...summary, mean: trues / n, top_values: top };
  }
  if (column.kind === "datetime") {
    return { ...summary, min: new Date(present[0]).toISOString(), max: new Date(present[n - 1]).toISOString() };
  }
  const s = finiteSummary(present);
  if (!s) return summary;
  const numeric = { ...summary, min: s.min, max: s.max, mean: s.mean, std: s.count > 1 ? Math.sqrt(s.m2 / (s.count - 1)) : null };
  return column.kind === "numeric" ? { ...numeric, integer_valued: s.integers } : numeric;
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
