/**
 * One-column counterfactuals for models without trees to search (anomaly, clustering): a column's
 * feature is set to another value in the featurized row and the caller's `changes` test (the
 * model itself: "no longer flagged", "in another cluster") says whether the outcome moved.
 * - Numeric values are narrowed from the row's value toward the candidate to the nearest point
 *   that still changes the outcome, then shown as a readable number just across
 *   it (a whole number for integer data, else the roundest within 2% of the column's spread);
 *   every value shown is tested, so a counterfactual is never misstated.
 * - Datetime columns are not changed: their parts move together, one value cannot stand for them.
 */
import type { FeatureDef } from "../featurize";
import { formatExact } from "./explain-format";
import { type FeatureStats, typicalSpread, wholeNumbers } from "./feature-stats";
import type { CellValue } from "./input-columns";

/** Points tried per narrowing round, and rounds: 16^8 = 2^32 parts of the gap, below float32 resolution. */
const GRID = 15;
const ROUNDS = 8;

/** Whether each value, put in the row, changes the outcome (batched: the model scores them together). */
export type ChangeTest = (values: number[]) => boolean[];

/**
 * The value closest to `from` on the way to `to` (where `changes` holds) that still changes the
 * outcome, as readable as possible; `to` itself when `from` is missing. The gap is narrowed by
 * rounds of GRID evenly spaced points (the first that changes the outcome bounds the next round),
 * so a round costs one batched call of the model instead of one call per bisection step.
 */
export function nearestChange(from: number, to: number, changes: ChangeTest, stats: FeatureStats): number {
  if (from !== from) return to;
  let lo = from; // unchanged outcome
  let hi = to; // changed outcome
  for (let round = 0; round < ROUNDS; round++) {
    const points: number[] = [];
    for (let g = 1; g <= GRID; g++) {
      const p = Math.fround(lo + ((hi - lo) * g) / (GRID + 1));
      if (p !== Math.fround(lo) && p !== Math.fround(hi) && p !== points[points.length - 1]) points.push(p);
    }
    if (points.length === 0) break;
    const moved = changes(points);
    const first = moved.indexOf(true);
    if (first >= 0) {
      hi = points[first];
      if (first > 0) lo = points[first - 1];
    } else lo = points[points.length - 1];
  }
  const readable = readableBetween(lo, hi, to, stats);
  const moved = changes(readable);
  const at = moved.indexOf(true);
  return at >= 0 ? readable[at] : hi;
}

/** Readable values just across the boundary (lo, hi], still on the way to `to`, roundest first. */
function readableBetween(lo: number, hi: number, to: number, stats: FeatureStats): number[] {
  const up = to > lo;
  const out: number[] = [];
  const within = (c: number) => Number.isFinite(c) && (up ? c > lo && c <= to : c < lo && c >= to);
  if (wholeNumbers(stats)) {
    const c = up ? Math.floor(lo) + 1 : Math.ceil(lo) - 1;
    if (within(c)) out.push(c);
  }
  const tol = Math.min(0.02 * typicalSpread(stats), lo !== 0 ? 0.1 * Math.abs(lo) : Infinity) || Math.abs(hi - lo);
  const top = Math.ceil(Math.log10(tol)) + 1;
  for (let k = top; k >= top - 12; k--) {
    const step = 10 ** k;
    const c = Number(((up ? Math.floor(lo / step) + 1 : Math.ceil(lo / step) - 1) * step).toPrecision(12));
    if (within(c) && Math.abs(c - lo) <= Math.max(tol, Math.abs(hi - lo))) {
      out.push(c);
      break;
    }
  }
  out.push(Number(hi.toPrecision(7)));
  return out;
}

/** The changed value as the user reads it, and its phrase ("with tenure of 14"). */
export function changeText(column: string, def: FeatureDef, value: number): { to: CellValue; phrase: string } {
  if (def.transform === "category") {
    const name = def.vocabulary?.[value] ?? String(value);
    return { to: name, phrase: `with ${column} '${name}'` };
  }
  if (def.transform === "boolean") return { to: value !== 0, phrase: `with ${column} ${value !== 0}` };
  return { to: value, phrase: `with ${column} of ${formatExact(value)}` };
}
