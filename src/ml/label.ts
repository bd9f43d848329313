/**
 * The label of a prediction model: its values per row, the task (given or inferred) and the
 * classes, with the input checks that turn a bad label into a clear MlInputError.
 */
import { MAX_CLASSES } from "../core/limits";
import { MlInputError } from "./errors";
import type { Column, ColumnKind } from "./frame";

export type Task = "classification" | "regression";
/** A numeric label with at most this many distinct values, all integers, is taken as classes. */
const MAX_INFERRED_CLASSES = 10;

/** What the task of a label is inferred from: its kind, and for numbers, its distinct values. */
export interface LabelSummary {
  kind: ColumnKind;
  distinct: number;
  /** Numeric labels: whether every value is an integer (unknown counts as integers). */
  integers?: boolean;
}

/**
 * The one rule of task inference, used by the engine (on the data) and by the request-time checks
 * (on the column profile): a datetime label is a quantity; a numeric label is classes when it has
 * at most 10 distinct values, all integers (counts, codes, ratings), else a quantity; any other
 * label (text, categories, booleans) is classes.
 */
export function inferTask(label: LabelSummary): Task {
  if (label.kind === "datetime") return "regression";
  if (label.kind !== "numeric") return "classification";
  return label.distinct <= MAX_INFERRED_CLASSES && label.integers !== false ? "classification" : "regression";
}

export interface Label {
  task: Task;
  /** Per frame row: class index or target value (NaN where missing). */
  y: Float64Array;
  /** Rows with a label. */
  rows: Int32Array;
  classes: string[] | null;
}

/**
 * Label values, task (inferred when absent: dictionary or boolean label, or numeric with at most
 * 10 distinct integer values -> classification) and classes (sorted; numerically when all
 * numeric). Rows with a missing label are left out of `rows`.
 */
export function extractLabel(col: Column, rowCount: number, task?: Task): Label {
  const name = col.name;
  let present = 0;
  for (let i = 0; i < rowCount; i++) if (col.storage === "dictionary" ? col.codes[i] >= 0 : col.values[i] === col.values[i]) present++;
  if (present === 0) throw new MlInputError(`label column "${name}" has no values (all missing)`);
  if (col.storage === "numeric") {
    let inf = 0;
    for (let i = 0; i < rowCount; i++) if (col.values[i] === Infinity || col.values[i] === -Infinity) inf++;
    if (inf > 0) throw new MlInputError(`label column "${name}" contains ${inf} infinite value(s)`);
  }
  const inferred = task ?? inferTask(summarize(col, rowCount));
  const y = new Float64Array(rowCount).fill(NaN);
  if (inferred === "regression") {
    if (col.storage === "dictionary") {
      const parsed = col.dictionary.map((s) => (s.trim() === "" ? NaN : Number(s)));
      const bad = col.dictionary.find((_s, c) => !Number.isFinite(parsed[c]));
      if (bad !== undefined) throw new MlInputError(`regression label "${name}" has a non-numeric value: "${bad}"`);
      for (let i = 0; i < rowCount; i++) if (col.codes[i] >= 0) y[i] = parsed[col.codes[i]];
    } else y.set(col.values.subarray(0, rowCount));
    return { task: "regression", y, rows: presentRows(y), classes: null };
  }
  // classification: class strings, one per distinct stored value (not per row: large tables)
  const { keys, keyOf } = classKeys(col, rowCount);
  const distinct = [...new Set(keys)];
  if (distinct.length > MAX_CLASSES) {
    throw new MlInputError(`label column "${name}" has ${distinct.length} distinct classes; the limit for classification is ${MAX_CLASSES}`);
  }
  if (distinct.length < 2) throw new MlInputError(`label column "${name}" has only one class ("${distinct[0]}"); at least two are needed`);
  const allNumeric = distinct.every((s) => s.trim() !== "" && Number.isFinite(Number(s)));
  const classes = allNumeric ? distinct.sort((a, b) => Number(a) - Number(b)) : distinct.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const index = new Map(classes.map((c, k) => [c, k]));
  const classOfKey = Float64Array.from(keys, (s) => index.get(s)!);
  for (let i = 0; i < rowCount; i++) {
    const k = keyOf(i);
    if (k >= 0) y[i] = classOfKey[k];
  }
  return { task: "classification", y, rows: presentRows(y), classes };
}

/** Rows whose value is not NaN, in order. */
function presentRows(y: Float64Array): Int32Array {
  let n = 0;
  for (let i = 0; i < y.length; i++) if (y[i] === y[i]) n++;
  const rows = new Int32Array(n);
  for (let i = 0, m = 0; i < y.length; i++) if (y[i] === y[i]) rows[m++] = i;
  return rows;
}

/**
 * The class string of each distinct value present in the column, in order of first appearance,
 * and each row's index into it (-1 = missing). A dictionary column's keys are its used codes, a
 * numeric column's its distinct values (booleans: their spellings).
 */
function classKeys(col: Column, rowCount: number): { keys: string[]; keyOf: (row: number) => number } {
  const keys: string[] = [];
  if (col.storage === "dictionary") {
    const keyOfCode = new Int32Array(col.dictionary.length).fill(-1);
    for (let i = 0; i < rowCount; i++) {
      const c = col.codes[i];
      if (c >= 0 && keyOfCode[c] < 0) {
        keyOfCode[c] = keys.length;
        keys.push(col.dictionary[c]);
      }
    }
    return { keys, keyOf: (i) => (col.codes[i] >= 0 ? keyOfCode[col.codes[i]] : -1) };
  }
  const [no, yes] = col.booleanLabels ?? ["false", "true"];
  const keyOfValue = new Map<number, number>();
  for (let i = 0; i < rowCount; i++) {
    const v = col.values[i];
    if (v !== v || keyOfValue.has(v)) continue;
    keyOfValue.set(v, keys.length);
    keys.push(col.kind === "boolean" ? (v !== 0 ? yes : no) : String(v));
  }
  return { keys, keyOf: (i) => (col.values[i] === col.values[i] ? keyOfValue.get(col.values[i])! : -1) };
}

/** The label's summary for {@link inferTask}, read off the data (counting stops past what the rule needs). */
function summarize(col: Column, rowCount: number): LabelSummary {
  // Text values (categories, ids, unparsed strings) are classes whatever they spell.
  if (col.storage === "dictionary") return { kind: "categorical", distinct: col.dictionary.length };
  const seen = new Set<number>();
  let integers = true;
  for (let i = 0; i < rowCount && seen.size <= MAX_INFERRED_CLASSES; i++) {
    const v = col.values[i];
    if (v !== v) continue;
    if (v !== Math.floor(v)) integers = false;
    seen.add(v);
  }
  return { kind: col.kind, distinct: seen.size, integers };
}
