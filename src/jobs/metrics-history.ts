import { MAX_HISTORY_POINTS } from "../core/limits";
import type { MetricPoint } from "./types";

/**
 * Keep at most 200 points: when full, drop every other point in place (keeping the first and
 * the newest), so the history always spans the whole run at a coarser resolution.
 */
export function capHistory(points: MetricPoint[]): MetricPoint[] {
  if (points.length <= MAX_HISTORY_POINTS) return points;
  const newest = points[points.length - 1];
  const kept = points.slice(0, -1).filter((_, i) => i % 2 === 0);
  kept.push(newest);
  return kept.length > MAX_HISTORY_POINTS ? capHistory(kept) : kept;
}
