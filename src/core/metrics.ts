/**
 * What the service counts in Workers Analytics Engine (the METRICS binding, wrangler.toml), in one
 * place: the layout of each data point, which the README's queries read. Locally (`npm start`, the
 * test pool) the binding is wrangler's stand-in, which takes the points and keeps none; the same
 * fields are in the JSON log lines.
 *
 * Every point: index1 the organization ("" when none: an unauthenticated request), blob1 the kind.
 * - request: blob2 method, blob3 route (the pattern, `/jobs/:id`), blob4 status (text);
 *   double1 duration in ms, double2 status (a number, for ranges: `double2 >= 500`).
 * - job (once, when it ends): blob2 job type, blob3 outcome (succeeded, failed, canceled);
 *   double1 duration in ms from start (0 when it never started), double2 attempts that ran.
 */

/** The binding, as far as writing goes (its type is the runtime's AnalyticsEngineDataset). */
export interface MetricsSink {
  writeDataPoint(point: { indexes?: string[]; blobs?: string[]; doubles?: number[] }): void;
}

export interface RequestMetric {
  organization: string | null;
  method: string;
  route: string;
  status: number;
  durationMs: number;
}

export interface JobMetric {
  organization: string;
  type: string;
  outcome: string;
  durationMs: number;
  attempts: number;
}

/** Writing a metric never fails the work it measures (a missing binding, a full buffer). */
function write(sink: MetricsSink | undefined, point: Parameters<MetricsSink["writeDataPoint"]>[0]): void {
  try {
    sink?.writeDataPoint(point);
  } catch (e) {
    console.warn("writing a metric failed", e);
  }
}

export function recordRequest(sink: MetricsSink | undefined, m: RequestMetric): void {
  write(sink, {
    indexes: [m.organization ?? ""],
    blobs: ["request", m.method, m.route, String(m.status)],
    doubles: [m.durationMs, m.status],
  });
}

export function recordJob(sink: MetricsSink | undefined, m: JobMetric): void {
  write(sink, { indexes: [m.organization], blobs: ["job", m.type, m.outcome], doubles: [m.durationMs, m.attempts] });
}
