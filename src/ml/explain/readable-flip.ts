/**
 * A flip target (./flip-search) as the user reads it: `to` as a value of the input column (a
 * category name, true/false, a number just across the crossed threshold, or a datetime part
 * described as "month 7"), re-predicted through the model so the value shown really flips.
 *
 * Numeric `to`: the next integer when the feature's thresholds are all whole or half numbers
 * (midpoints of integer data), else the roundest number within min(2% of the thresholds' scale,
 * 10% of the threshold) of the crossed threshold; the search's own value when neither flips.
 */
import type { FeatureDef } from "../featurize";
import { predictRow, type RowPrediction } from "./evaluate";
import { type CellValue, cellOf, type ExplainContext, type InputColumn } from "./explain-context";
import { dateOfEpochDays, formatExact, formatNumber, weekdayName } from "./explain-format";
import type { FlipTarget } from "./flip-search";

export interface Flip {
  column: InputColumn;
  from: CellValue;
  to: CellValue;
  /** "with tenure of 14 or more" */
  phrase: string;
  pred: RowPrediction;
}

/** The interval (lo, hi] between a feature's thresholds holding `to`; anchorLow: `to` sits just above lo. */
interface Interval {
  lo: number;
  hi: number;
  anchorLow: boolean;
}

export function intervalOf(thresholds: number[], to: number): Interval {
  // Sorted thresholds; `to` is either a threshold (the top of its interval) or just above one.
  const x = Math.fround(to);
  let lo = -Infinity;
  let hi = Infinity;
  for (const t of thresholds) {
    if (t < x) lo = t;
    else {
      hi = t;
      break;
    }
  }
  return { lo, hi, anchorLow: x !== hi };
}

const inInterval = (iv: Interval, c: number) => Math.fround(c) > iv.lo && Math.fround(c) <= iv.hi;

/** The roundest number of the interval within `tol` of its anchored edge, or null. */
function roundIn(iv: Interval, tol: number): number | null {
  const bandLo = iv.anchorLow ? iv.lo : Math.max(iv.lo, iv.hi - tol);
  const bandHi = iv.anchorLow ? Math.min(iv.hi, iv.lo + tol) : iv.hi;
  const top = Math.ceil(Math.log10(tol)) + 1;
  for (let k = top; k >= top - 12; k--) {
    const step = 10 ** k;
    const c = Number((iv.anchorLow ? (Math.floor(bandLo / step) + 1) * step : Math.floor(bandHi / step) * step).toPrecision(12));
    if (inInterval(iv, c) && c > bandLo && c <= bandHi) return c;
  }
  return null;
}

/** An integer of the interval next to its anchored edge, or null. */
function integerIn(iv: Interval): number | null {
  const c = iv.anchorLow ? Math.floor(iv.lo) + 1 : Math.floor(iv.hi);
  return Number.isFinite(c) && inInterval(iv, c) ? c : null;
}

/** Whether `p` still counts as a flip of `base`. */
function flips(ctx: ExplainContext, base: RowPrediction, p: RowPrediction, delta: number): boolean {
  return ctx.model.objective === "regression" ? Math.abs(p.value - base.value) >= delta : p.value !== base.value;
}

/**
 * The flip with a readable `to`, re-predicted through the model; null when even the search's
 * own value does not flip (the caller then falls back to ./flip).
 */
export function readableFlip(
  ctx: ExplainContext,
  row: number,
  x: Float32Array,
  pred: RowPrediction,
  found: Pick<FlipTarget, "feature" | "to" | "lo" | "hi" | "anchorLow">,
  delta: number,
): Flip | null {
  const f = found.feature;
  const def = ctx.featurizer.features[f];
  const column = ctx.columns[ctx.columnOf[f]];
  const from = cellOf(column, row);
  const work = Float32Array.from(x);
  const tryValue = (v: number): RowPrediction | null => {
    work[f] = v;
    const p = predictRow(ctx.model, work);
    return flips(ctx, pred, p, delta) ? p : null;
  };

  if (def.transform === "category") {
    // a row holds a level in one of its column's features (`column`, `column.rare1`, …; ../featurize)
    // and NaN in the others: re-predicted as such a row, the flip shown is one the column can make
    ctx.featurizer.features.forEach((g, k) => {
      if (k !== f && g.source === def.source && g.transform === "category") work[k] = NaN;
    });
    const p = tryValue(found.to);
    const name = def.vocabulary?.[found.to] ?? String(found.to);
    return p && { column, from, to: name, phrase: `with ${column.name} '${name}'`, pred: p };
  }

  const iv: Interval = { lo: found.lo, hi: found.hi, anchorLow: found.anchorLow };
  // "or more" / "or less" hold when the interval is unbounded on the far side from its anchor.
  const open = iv.anchorLow ? iv.hi === Infinity : iv.lo === -Infinity;
  const readable: (number | null)[] = [];
  if (def.transform !== "numeric") readable.push(integerIn(iv));
  else {
    const t = ctx.search.thresholds[f];
    const scale = Math.max(Math.abs(t[0]), Math.abs(t[t.length - 1]), t[t.length - 1] - t[0]) || 1;
    const edge = iv.anchorLow ? iv.lo : iv.hi;
    const tol = edge !== 0 ? Math.min(0.02 * scale, 0.1 * Math.abs(edge)) : 0.02 * scale;
    // Thresholds are midpoints between training values: all whole or half numbers = integer data.
    if (t.every((v) => Number.isInteger(2 * v)) && Math.abs(edge) < 1e6) readable.push(integerIn(iv));
    readable.push(roundIn(iv, tol), Number(Math.fround(found.to).toPrecision(7)));
  }
  readable.push(found.to);
  let value = NaN;
  let p: RowPrediction | null = null;
  for (const c of readable) {
    if (c === null || !inInterval(iv, c)) continue;
    p = tryValue(c);
    if (p) {
      value = c;
      break;
    }
  }
  if (!p) return null;

  const name = column.name;
  switch (def.transform) {
    case "numeric":
      return {
        column,
        from,
        to: value,
        phrase: `with ${name} of ${formatExact(value)}${open ? (iv.anchorLow ? " or more" : " or less") : ""}`,
        pred: p,
      };
    case "boolean": {
      const b = value !== 0;
      return { column, from, to: b, phrase: `with ${name} ${b}`, pred: p };
    }
    default: {
      const later = open ? (iv.anchorLow ? " or later" : " or earlier") : "";
      const { to, phrase } = datePartText(def.transform, value, later);
      return { column, from, to, phrase: `with ${name} ${phrase}`, pred: p };
    }
  }
}

/** A datetime part's value as text ("month 7") and its phrase ("in month 7"). */
function datePartText(part: FeatureDef["transform"], v: number, later: string): { to: string; phrase: string } {
  const n = Number.isInteger(v) ? String(v) : formatNumber(v);
  switch (part) {
    case "year":
      return { to: `year ${n}`, phrase: `in ${n}${later}` };
    case "month":
      return { to: `month ${n}`, phrase: `in month ${n}` };
    case "day":
      return { to: `day ${n}`, phrase: `on day ${n} of the month` };
    case "dayofweek": {
      const d = Number.isInteger(v) ? weekdayName(v) : `day of week ${n}`;
      return { to: d, phrase: `on a ${d}` };
    }
    case "hour":
      return { to: `hour ${n}`, phrase: `at hour ${n}` };
    default: {
      const d = Number.isInteger(v) ? dateOfEpochDays(v) : `day ${n} since 1970-01-01`;
      return { to: d, phrase: `on ${d}${later}` };
    }
  }
}
