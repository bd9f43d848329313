/**
 * Credits a job consumes, recorded when it ends (succeeded or failed after running):
 *
 *   credits = 0.01 + rows_processed / 100,000 + compute_seconds / 600
 *
 * i.e. one credit buys 100,000 rows read or written, or ten minutes of compute, and every job
 * that ran costs a hundredth of a credit. Jobs that never ran (canceled while queued) cost 0.
 * Rounded to 4 decimals so sums stay readable.
 */
export function creditsFor(rowsProcessed: number, computeSeconds: number): number {
  const raw = 0.01 + Math.max(0, rowsProcessed) / 100_000 + Math.max(0, computeSeconds) / 600;
  return Math.round(raw * 10_000) / 10_000;
}
