/**
 * The treatment and the outcome of a causal model, read off the frame with the checks that turn
 * an unusable column into a clear MlInputError.
 *
 * Treatment: `params.action_column`, else inferred from the columns other than the outcome: a
 * binary column (exactly two values) whose name has a word suggesting an action (ACTION_WORDS). One
 * such column is used; none or several fail with the candidates listed, because guessing wrong
 * silently would answer a different question. A named column may have up to MAX_ARMS values
 * (a multi-arm treatment, each arm estimated against the control).
 *
 * Control arm: `params.control_value`, else the value that reads as "not treated" (0, false, no,
 * control, none, ...; for numbers the smallest); two categories with no such value fail asking
 * for `params.control_value`.
 */
import { MlInputError } from "../errors";
import type { Column, Frame } from "../frame";
import { findColumn } from "../frame";

/** Most arms (control included) of a treatment. */
const MAX_ARMS = 8;

/** Word stems that make a binary column a treatment candidate (matched per word of the name). */
const ACTION_WORDS = ["treat", "action", "offer", "intervention", "interven", "assign", "campaign", "variant", "exposed", "exposure", "promo"];
/** Whole words that also count (too short to match as stems). */
const ACTION_EXACT = new Set(["arm", "treated", "treatment", "ab", "abtest"]);
/** Values read as the control arm, lower-cased. */
const CONTROL_WORDS = new Set(["0", "false", "no", "n", "f", "control", "none", "off", "untreated", "baseline", "placebo", "not treated"]);

export interface Treatment {
  column: string;
  /** Why this column: "params.action_column", or the inference rule. */
  reason: string;
  /** Arm values; arms[0] is the control. */
  arms: string[];
  /** Per frame row: arm index, -1 where the treatment is missing. */
  arm: Int32Array;
}

/** The words of a column name: split on non-letters/digits and camelCase, lower-cased. */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

function suggestsAction(name: string): boolean {
  return words(name).some((w) => ACTION_EXACT.has(w) || ACTION_WORDS.some((s) => w.startsWith(s)));
}

/** Per row the column's value as a string (null when missing), and its distinct values. */
export function columnValues(col: Column, n: number): { str: (string | null)[]; distinct: string[]; numeric: boolean } {
  const str: (string | null)[] = new Array(n);
  if (col.storage === "dictionary") {
    for (let i = 0; i < n; i++) str[i] = col.codes[i] >= 0 ? col.dictionary[col.codes[i]] : null;
  } else {
    const [no, yes] = col.booleanLabels ?? ["false", "true"];
    for (let i = 0; i < n; i++) {
      const v = col.values[i];
      str[i] = v !== v ? null : col.kind === "boolean" ? (v !== 0 ? yes : no) : String(v);
    }
  }
  const distinct = [...new Set(str.filter((s): s is string => s !== null))];
  const numeric = distinct.every((s) => s.trim() !== "" && Number.isFinite(Number(s)));
  distinct.sort(numeric ? (a, b) => Number(a) - Number(b) : (a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { str, distinct, numeric };
}

function distinctCount(col: Column, n: number, cap: number): number {
  const seen = new Set<number>();
  for (let i = 0; i < n && seen.size <= cap; i++) {
    const v = col.storage === "dictionary" ? col.codes[i] : col.values[i];
    if (col.storage === "dictionary" ? v >= 0 : v === v) seen.add(v);
  }
  return seen.size;
}

export function resolveTreatment(frame: Frame, outcomeColumn: string, actionColumn?: string, controlValue?: string): Treatment {
  let column: string;
  let reason: string;
  if (actionColumn !== undefined && actionColumn !== null) {
    if (!findColumn(frame, actionColumn)) throw new MlInputError(`treatment column "${actionColumn}" (params.action_column) not found`);
    if (actionColumn === outcomeColumn) throw new MlInputError(`the treatment column "${actionColumn}" cannot also be the outcome (label) column`);
    column = actionColumn;
    reason = "set by params.action_column";
  } else {
    const others = frame.columns.filter((c) => c.name !== outcomeColumn && c.name !== "id");
    const binary = others.filter((c) => distinctCount(c, frame.rowCount, 2) === 2);
    const candidates = binary.filter((c) => suggestsAction(c.name)).map((c) => c.name);
    const hint = "set params.action_column to the treatment column";
    if (candidates.length === 0) {
      const listed = binary.map((c) => `"${c.name}"`).join(", ");
      throw new MlInputError(
        `no treatment column could be inferred: no two-valued column has a name suggesting an action (${[...ACTION_EXACT, ...ACTION_WORDS].slice(0, 9).join(", ")}, ...)` +
          `${listed ? `; two-valued columns: ${listed}` : "; the dataset has no two-valued column"}; ${hint}`,
      );
    }
    if (candidates.length > 1) {
      throw new MlInputError(`several columns could be the treatment: ${candidates.map((c) => `"${c}"`).join(", ")}; ${hint}`);
    }
    column = candidates[0];
    reason = `inferred: the only two-valued column whose name suggests an action (params.action_column not set)`;
  }
  const col = findColumn(frame, column)!;
  const { str, distinct, numeric } = columnValues(col, frame.rowCount);
  if (distinct.length < 2) {
    throw new MlInputError(
      `treatment column "${column}" has ${distinct.length === 0 ? "no values" : `a single value ("${distinct[0]}")`}: a causal effect needs treated and control rows`,
    );
  }
  if (distinct.length > MAX_ARMS) {
    throw new MlInputError(
      `treatment column "${column}" has ${distinct.length} distinct values; a treatment has at most ${MAX_ARMS} arms (control included)`,
    );
  }
  const control = pickControl(column, distinct, numeric, controlValue);
  const arms = [control, ...distinct.filter((v) => v !== control)];
  const index = new Map(arms.map((a, k) => [a, k]));
  const arm = Int32Array.from(str, (s) => (s === null ? -1 : index.get(s)!));
  return { column, reason, arms, arm };
}

function pickControl(column: string, distinct: string[], numeric: boolean, controlValue?: string): string {
  const listed = distinct.map((v) => `"${v}"`).join(", ");
  if (controlValue !== undefined && controlValue !== null) {
    const hit = distinct.find((v) => v === controlValue) ?? distinct.find((v) => v.toLowerCase() === String(controlValue).toLowerCase());
    if (hit === undefined)
      throw new MlInputError(`params.control_value "${controlValue}" is not a value of treatment column "${column}" (${listed})`);
    return hit;
  }
  const named = distinct.filter((v) => CONTROL_WORDS.has(v.trim().toLowerCase()));
  if (named.length === 1) return named[0];
  if (numeric) return distinct[0];
  throw new MlInputError(`treatment column "${column}" has values ${listed}: set params.control_value to the one that is the control`);
}

export interface Outcome {
  kind: "numeric" | "binary";
  /** Per frame row: the outcome (binary: 0/1, 1 = `positive`), NaN where missing. */
  y: Float64Array;
  /** Binary: the two values [0-value, 1-value]; effects are on P(outcome = classes[1]). */
  classes: [string, string] | null;
}

/**
 * A numeric outcome keeps its scale; two values (booleans, yes/no, 0/1) make a binary outcome
 * whose effects are on the probability of the second (sorted) value; anything else fails.
 */
export function resolveOutcome(frame: Frame, outcomeColumn: string): Outcome {
  const col = findColumn(frame, outcomeColumn);
  if (!col) throw new MlInputError(`outcome (label) column "${outcomeColumn}" not found`);
  const { str, distinct, numeric } = columnValues(col, frame.rowCount);
  if (distinct.length === 0) throw new MlInputError(`outcome column "${outcomeColumn}" has no values (all missing)`);
  if (distinct.length === 1)
    throw new MlInputError(`outcome column "${outcomeColumn}" is constant ("${distinct[0]}"): there is no effect to estimate`);
  if (distinct.length === 2) {
    const y = Float64Array.from(str, (s) => (s === null ? NaN : s === distinct[1] ? 1 : 0));
    return { kind: "binary", y, classes: [distinct[0], distinct[1]] };
  }
  if (!numeric) {
    throw new MlInputError(
      `outcome column "${outcomeColumn}" has ${distinct.length} non-numeric values: a causal outcome must be numeric or have two values`,
    );
  }
  const y = Float64Array.from(str, (s) => (s === null ? NaN : Number(s)));
  if (y.some((v) => v === Infinity || v === -Infinity)) throw new MlInputError(`outcome column "${outcomeColumn}" contains infinite values`);
  return { kind: "numeric", y, classes: null };
}
