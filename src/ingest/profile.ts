import type { Column, ColumnKind, Frame } from "../ml/frame";

/** One column of the dataset detail's `columns`. Every field is present; null when it does not
 * apply or there is nothing to summarise (never NaN, so it is safe JSON). */
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
  /** numeric: sample standard deviation (n - 1). */
  std: number | null;
  /** categorical, text and boolean: the 5 most frequent values, most frequent first. */
  top_values: Array<{ value: string | boolean; count: number }> | null;
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
    const top =
      column.kind === "id"
        ? null
        : topIndexes(counts, TOP).map((i) => ({ value: column.dictionary[i], count: counts[i] }));
    return { ...base, missing_count: missing, distinct_count: distinct, top_values: top };
  }

  // Numeric storage: a sorted copy of the present values gives min, max and distinct count.
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
    ].filter((t) => t.count > 0).sort((a, b) => b.count - a.count);
    return { ...summary, mean: trues / n, top_values: top };
  }
  if (column.kind === "datetime") {
    return { ...summary, min: new Date(present[0]).toISOString(), max: new Date(present[n - 1]).toISOString() };
  }
  let sum = 0;
  for (const v of present) sum += v;
  const mean = sum / n;
  let ss = 0;
  for (const v of present) ss += (v - mean) * (v - mean);
  return { ...summary, min: present[0], max: present[n - 1], mean, std: n > 1 ? Math.sqrt(ss / (n - 1)) : null };
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
