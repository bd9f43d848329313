/**
 * Average effects over a set of rows, after training: the pieces behind
 * `POST /models/{id}/estimate-causal-effect`.
 *
 * - Over the training rows the cross-fitted pseudo-outcomes φ (pseudo_outcomes.bin) are already
 *   the AIPW influence values: a group's mean φ is its estimate, sd/√n its standard error.
 * - Over other rows that carry the treatment and the outcome, φ is built the same way from the
 *   served models (outcome per arm, propensity; fit on the training data, so independent of these
 *   rows and no cross-fitting is needed): AIPW again.
 * - Over rows without them only the predicted effects are known: their mean, and no interval
 *   (the spread of predictions over rows is not the uncertainty of the estimate).
 * Values of the treatment and outcome in new data are matched to the training values by a
 * canonical form (numbers by value, yes/true/1 alike, case-insensitive); others count as missing.
 */
import { MlInputError } from "../errors";
import type { Frame } from "../frame";
import { findColumn } from "../frame";
import { aipwEstimate } from "./aipw";
import { columnValues } from "./treatment";

interface ArmEstimate {
  arm: string;
  ate: number | null;
  std_error: number | null;
  ci_low: number | null;
  ci_high: number | null;
  /** Rows in the estimate (with a value for this arm). */
  n: number;
  n_treated: number | null;
}

export interface EffectSummary {
  /** The single treated arm's estimate; null for a treatment with several treated arms (see estimates). */
  ate: number | null;
  std_error: number | null;
  ci_low: number | null;
  ci_high: number | null;
  n: number;
  n_treated: number | null;
  n_control: number | null;
  estimates: ArmEstimate[];
}

const TRUE_WORDS = new Set(["true", "yes", "y", "t", "1"]);
const FALSE_WORDS = new Set(["false", "no", "n", "f", "0"]);

/**
 * The form two spellings of one value share: numbers by value, booleans as true/false, lower case.
 * @internal exported for its unit test (test/ml/causal-estimate.test.ts)
 */
export function canonicalValue(s: string): string {
  let t = s.trim().toLowerCase();
  if (t !== "" && Number.isFinite(Number(t))) t = String(Number(t));
  if (TRUE_WORDS.has(t)) return "true";
  if (FALSE_WORDS.has(t)) return "false";
  return t;
}

/** Per row the index of `values` the cell matches (-1: missing or no match); null when the column is absent. */
function matchValues(frame: Frame, column: string, values: string[]): { index: Int32Array; unmatched: number } | null {
  const col = findColumn(frame, column);
  if (!col) return null;
  const { str } = columnValues(col, frame.rowCount);
  const byCanon = new Map(values.map((v, i) => [canonicalValue(v), i]));
  let unmatched = 0;
  const index = Int32Array.from(str, (s) => {
    if (s === null) return -1;
    const i = values.indexOf(s);
    const k = i >= 0 ? i : (byCanon.get(canonicalValue(s)) ?? -1);
    if (k < 0) unmatched++;
    return k;
  });
  return { index, unmatched };
}

/** Arm index per row (control 0, then the treated arms); null when the treatment column is absent. */
export function readArms(frame: Frame, column: string, arms: string[]) {
  return matchValues(frame, column, arms);
}

/** The outcome per row (binary: 1 for classes[1]), NaN when missing or unreadable; null when absent. */
export function readOutcome(frame: Frame, column: string, classes: [string, string] | null): { y: Float64Array; unmatched: number } | null {
  if (classes) {
    const m = matchValues(frame, column, classes);
    return m && { y: Float64Array.from(m.index, (k) => (k < 0 ? NaN : k)), unmatched: m.unmatched };
  }
  const col = findColumn(frame, column);
  if (!col) return null;
  const { str } = columnValues(col, frame.rowCount);
  let unmatched = 0;
  const y = Float64Array.from(str, (s) => {
    if (s === null) return NaN;
    const v = Number(s.trim());
    if (s.trim() === "" || !Number.isFinite(v)) {
      unmatched++;
      return NaN;
    }
    return v;
  });
  return { y, unmatched };
}

/**
 * AIPW influence values from the served models' predictions, row-major [N × treated arms]
 * (NaN where the arm or the outcome is unknown). muTreated is [N × A], muControl [N],
 * propensity [N × K] (control first), clipped as in training.
 */
export function pseudoFromPredictions(
  p: { muTreated: Float64Array; muControl: Float64Array; propensity: Float64Array },
  arm: Int32Array,
  y: Float64Array,
  clip: [number, number],
): Float64Array {
  const N = arm.length;
  const A = p.muTreated.length / Math.max(1, N);
  const K = A + 1;
  const [lo, hi] = clip;
  const phi = new Float64Array(N * A).fill(NaN);
  const e = new Float64Array(K);
  for (let i = 0; i < N; i++) {
    const t = arm[i];
    if (t < 0 || y[i] !== y[i]) continue;
    for (let k = 0; k < K; k++) e[k] = Math.min(hi, Math.max(lo, p.propensity[i * K + k]));
    if (K === 2) e[0] = 1 - e[1];
    const mu0 = p.muControl[i];
    const control = t === 0 ? (y[i] - mu0) / e[0] : 0;
    for (let a = 0; a < A; a++) {
      const mua = p.muTreated[i * A + a];
      const treated = t === a + 1 ? (y[i] - mua) / e[a + 1] : 0;
      phi[i * A + a] = mua - mu0 + treated - control;
    }
  }
  return phi;
}

const finite = (x: number) => (Number.isFinite(x) ? x : null);

/**
 * The estimate over `rows` from per-row values [frame rows × A] (φ with an interval, or predicted
 * effects without one); arm per row (null when unknown) gives the treated/control counts.
 */
export function summarizeEffect(
  values: Float64Array,
  treatedArms: string[],
  arm: Int32Array | null,
  rows: Int32Array | null,
  withInterval: boolean,
): EffectSummary {
  const A = treatedArms.length;
  const N = values.length / A;
  const picked = rows ?? Int32Array.from({ length: N }, (_, i) => i);
  const counts = arm ? new Array<number>(A + 1).fill(0) : null;
  if (arm && counts) for (const r of picked) if (arm[r] >= 0 && values[r * A] === values[r * A]) counts[arm[r]]++;
  const estimates = treatedArms.map((name, a): ArmEstimate => {
    const col = Float64Array.from(picked, (r) => values[r * A + a]);
    const est = aipwEstimate(col);
    return {
      arm: name,
      ate: est.n > 0 ? est.ate : null,
      std_error: withInterval ? finite(est.std_error) : null,
      ci_low: withInterval ? finite(est.ci_low) : null,
      ci_high: withInterval ? finite(est.ci_high) : null,
      n: est.n,
      n_treated: counts ? counts[a + 1] : null,
    };
  });
  const one = A === 1 ? estimates[0] : null;
  const n = Math.max(0, ...estimates.map((e) => e.n));
  return {
    ate: one?.ate ?? null,
    std_error: one?.std_error ?? null,
    ci_low: one?.ci_low ?? null,
    ci_high: one?.ci_high ?? null,
    n,
    n_treated: counts ? counts.slice(1).reduce((s, c) => s + c, 0) : null,
    n_control: counts ? counts[0] : null,
    estimates,
  };
}

export interface RowGroup {
  /** The group's value as read (null: rows where the column is missing). */
  value: string | null;
  rows: Int32Array;
}

/** Rows by their value of `column`, largest group first; more than `maxGroups` values fail. */
export function groupRows(frame: Frame, column: string, maxGroups: number): RowGroup[] {
  const col = findColumn(frame, column);
  if (!col) throw new MlInputError(`column "${column}" not found`);
  const { str } = columnValues(col, frame.rowCount);
  const byValue = new Map<string | null, number[]>();
  str.forEach((s, i) => {
    let g = byValue.get(s);
    if (!g) {
      if (byValue.size >= maxGroups) {
        throw new MlInputError(`column "${column}" has more than ${maxGroups} distinct values; group by a column with at most ${maxGroups}`);
      }
      byValue.set(s, (g = []));
    }
    g.push(i);
  });
  return [...byValue.entries()]
    .map(([value, rows]) => ({ value, rows: Int32Array.from(rows) }))
    .sort((a, b) => b.rows.length - a.rows.length || String(a.value).localeCompare(String(b.value)));
}
