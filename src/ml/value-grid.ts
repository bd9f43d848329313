/**
 * Numeric columns whose values all lie on a grid of points k/10^p or k·step (integers, prices,
 * fixed decimals, whole seconds or days) are put in order through the integer k instead of a sort
 * of doubles: counted per point when the grid is small, or as 32-bit keys sorted by radix.
 *
 * Exact: a value joins point k only if k's value is that very double, so distinct points are
 * distinct values, and k1 < k2 gives value(k1) < value(k2) (a correctly rounded division or
 * product is monotonic): the points in order are the distinct values in order.
 */
import { sortUint32 } from "./radix-sort";

/** k / times when `times` is set, else k · step. */
export interface Grid {
  times: number;
  step: number;
}

export const gridValue = (grid: Grid, k: number): number => (grid.times ? k / grid.times : k * grid.step);
const gridPoint = (grid: Grid, v: number): number => (grid.times ? Math.round(v * grid.times) : v / grid.step);
const onGrid = (grid: Grid, v: number): boolean => {
  const k = gridPoint(grid, v);
  return Number.isInteger(k) && gridValue(grid, k) === v;
};

const DAY_MS = 86_400_000;
/** Coarsest first (the fewest points): whole days and seconds in ms, then 0 to 9 decimal places. */
const GRIDS: readonly Grid[] = [
  { times: 0, step: DAY_MS },
  { times: 0, step: 1000 },
  ...Array.from({ length: 10 }, (_, p) => ({ times: 10 ** p, step: 0 })),
];

/** Grids up to this many points are counted per point (4 MB: random increments stay in cache). */
const MAX_COUNTED = 1 << 20;

/** The present values as points of a grid: their count per point from `lo`, or their sorted keys k − lo. */
export type GridOrder = { grid: Grid; lo: number } & ({ perPoint: Int32Array } | { keys: Uint32Array });

/**
 * The present values of `values` (n of them, from min to max, both finite, no −0) on the coarsest
 * grid that holds them all within 2^32 points; undefined when none does.
 */
export function gridOrder(values: Float64Array, n: number, min: number, max: number): GridOrder | undefined {
  return gridSearch(values, min, max, 2 ** 32, (grid, lo, points) =>
    points <= Math.min(MAX_COUNTED, 2 * n + 65536) ? countPoints(values, grid, lo, points) : sortedKeys(values, grid, lo, n),
  );
}

/**
 * The coarsest grid, from `lo` with at most `maxPoints` points, on which `pass` (a full pass over
 * the present values of `values`, min to max, both finite, no −0) succeeds: its result, or
 * undefined. `pass` answers the first value off the grid when it fails; that value is checked
 * first on the next grids. The one grid search: the profile's order and the frame's encoding.
 */
export function gridSearch<T extends object>(
  values: Float64Array,
  min: number,
  max: number,
  maxPoints: number,
  pass: (grid: Grid, lo: number, points: number) => T | number,
): (T & { grid: Grid; lo: number }) | undefined {
  // Values that failed a grid in a full pass: checked first on the next grids.
  const misfits: number[] = [];
  for (const grid of GRIDS) {
    const lo = gridPoint(grid, min);
    const hi = gridPoint(grid, max);
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || gridValue(grid, lo) !== min || gridValue(grid, hi) !== max) continue;
    if (hi - lo + 1 > maxPoints || !misfits.every((v) => onGrid(grid, v)) || !firstValuesFit(values, grid)) continue;
    const result = pass(grid, lo, hi - lo + 1);
    if (typeof result === "number") misfits.push(result);
    else return { grid, lo, ...result };
  }
  return undefined;
}

/** A look at the first 1,024 present values before a full pass (a float column fails here). */
function firstValuesFit(values: Float64Array, grid: Grid): boolean {
  for (let i = 0, seen = 0; i < values.length && seen < 1024; i++) {
    const v = values[i];
    if (v !== v) continue;
    seen++;
    if (!onGrid(grid, v)) return false;
  }
  return true;
}

/** The count of values per point from lo, or the first value off the grid. */
function countPoints(values: Float64Array, grid: Grid, lo: number, points: number): { perPoint: Int32Array } | number {
  const perPoint = new Int32Array(points);
  const { times, step } = grid;
  // Two loops with point and value written out: the hot loop of a large column.
  if (times) {
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v !== v) continue;
      const k = Math.round(v * times);
      if (k / times !== v) return v;
      perPoint[k - lo]++;
    }
  } else {
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v !== v) continue;
      const k = v / step;
      if (k * step !== v || !Number.isInteger(k)) return v;
      perPoint[k - lo]++;
    }
  }
  return { perPoint };
}

/** The keys k − lo of the n present values in ascending order, or the first value off the grid. */
function sortedKeys(values: Float64Array, grid: Grid, lo: number, n: number): { keys: Uint32Array } | number {
  const keys = new Uint32Array(n);
  const { times, step } = grid;
  let j = 0;
  if (times) {
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v !== v) continue;
      const k = Math.round(v * times);
      if (k / times !== v) return v;
      keys[j++] = k - lo;
    }
  } else {
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v !== v) continue;
      const k = v / step;
      if (k * step !== v || !Number.isInteger(k)) return v;
      keys[j++] = k - lo;
    }
  }
  return { keys: sortUint32(keys) };
}
